//! `toscanini graph`: the arguments as a [`PreviewRequest`], the library's
//! [`preview`], printed as DOT, JSON or SVG (through Graphviz `dot`).

use super::args::{Format, GraphArgs};
use super::session::Session;
use toscanini::compile::{PreviewRequest, preview};
use toscanini::error::Result;

pub(super) fn run(session: &mut Session, a: GraphArgs) -> Result<()> {
    let request = PreviewRequest {
        input: a.compile.input.clone(),
        options: session.options(&a.compile),
        plugin_dirs: a.compile.plugin_dirs.clone(),
        plan: a.plan.clone(),
        transform_to: a.transform_to.clone(),
        topology: a.topology,
        json: a.format == Format::Json,
    };
    let (sources, mut report) = session.reporting();
    let text = preview(&request, sources, &mut report)?;
    let text = if a.format == Format::Svg {
        svg(&text)?
    } else {
        text.into_bytes()
    };
    super::write_stdout(&text)
}

fn svg(dot: &str) -> Result<Vec<u8>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            toscanini::error::Error::io(
                "--format svg needs Graphviz (install the `graphviz` package, or print --format dot and draw it elsewhere); cannot run",
                "dot",
                e,
            )
        })?;
    // Write on another thread: dot may fill its output pipe before reading all input.
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = dot.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| toscanini::error::Error::io("cannot run", "dot", e))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(toscanini::error::Error::Internal(format!(
            "Graphviz `dot` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}
