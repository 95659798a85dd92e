//! `toscanini export`: the arguments as an [`ExportRequest`], the
//! library's [`export`], and what it wrote printed.

use super::args::ExportArgs;
use super::session::Session;
use toscanini::compile::{ExportRequest, export};
use toscanini::error::{Error, Result};

pub(super) fn run(session: &mut Session, a: ExportArgs) -> Result<()> {
    let language = match a.lang.languages().as_slice() {
        [one] => *one,
        _ => {
            return Err(Error::Usage(
                "export writes one plan: choose --lang bpel or --lang bpmn".into(),
            ));
        }
    };
    let request = ExportRequest {
        input: a.compile.input.clone(),
        options: session.writing_options(&a.compile, a.pretty),
        plugin_dirs: a.compile.plugin_dirs.clone(),
        plan: a.plan.clone(),
        transform_to: a.transform_to.clone(),
        language,
        out: a.out.clone(),
    };
    let (sources, mut report) = session.reporting();
    let (name, files) = export(&request, sources, &mut report)?;
    eprintln!("wrote {name} ({files} files) to {}", a.out.display());
    Ok(())
}
