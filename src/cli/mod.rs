//! The command line: parse arguments, run one command, print diagnostics,
//! map the outcome to an exit code (0 ok, 1 input has errors, 2 usage, 3
//! I/O or internal failure). Only this module sees every stage.

mod args;
mod export;
mod graph;
mod plan;
mod plugins;
mod session;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

pub(crate) use args::Cli;

/// Run toscanini with these arguments (the first is the program name).
pub(crate) fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let mut session = session::Session::new(cli.message_format, cli.verbose);
    let result = match cli.command {
        args::Command::Plan(a) => plan::run(&mut session, a),
        args::Command::Graph(a) => graph::run(&mut session, a),
        args::Command::Export(a) => export::run(&mut session, a),
        args::Command::Plugins(a) => plugins::run(&mut session, a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => ExitCode::from(session.report(e)),
    }
}

/// Write command output to standard output. A reader that went away
/// (`toscanini plugins list | head`) is not an error.
fn write_stdout(text: impl AsRef<[u8]>) -> toscanini::error::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_ref()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(toscanini::error::Error::io(
            "cannot write",
            "standard output",
            e,
        )),
        _ => Ok(()),
    }
}
