//! `toscanini export`: one plan as an unpacked deployment unit (BPEL: the
//! directory Apache ODE's hot-deploy folder takes; BPMN: the `.bpmn` file
//! a Camunda 7 / Operaton deployment takes).

use super::args::ExportArgs;
use super::session::{Session, plan_kind};
use crate::error::{Error, Result};
use crate::render::templates::Templates;

pub fn run(session: &mut Session, a: ExportArgs) -> Result<()> {
    let (loaded, registry, options) = session.load(&a.compile)?;
    let kind = plan_kind(&a.plan)?;
    let (plans, warnings) = crate::derive(&loaded.topology, &[kind], &registry, &options)?;
    session.print(&warnings);
    let templates = Templates::embedded()?;
    let lang = match a.lang.languages().as_slice() {
        [one] => *one,
        _ => {
            return Err(Error::Usage(
                "export writes one plan: choose --lang bpel or --lang bpmn".into(),
            ));
        }
    };
    let rendered = crate::render::render(lang, &plans[0], &loaded.topology, &templates)?;
    if a.out.exists() {
        let empty = std::fs::read_dir(&a.out)
            .map_err(|e| Error::io("cannot read", &a.out, e))?
            .next()
            .is_none();
        if !empty {
            return Err(Error::Usage(format!(
                "`{}` exists and is not empty; export writes into a new or empty directory",
                a.out.display()
            )));
        }
    }
    std::fs::create_dir_all(&a.out).map_err(|e| Error::io("cannot create", &a.out, e))?;
    for f in &rendered.files {
        let path = a.out.join(&f.name);
        crate::csar::write::write_atomically(&path, &f.data)?;
    }
    eprintln!(
        "wrote {} ({} files) to {}",
        rendered.name,
        rendered.files.len(),
        a.out.display()
    );
    Ok(())
}
