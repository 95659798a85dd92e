//! The `toscanini` command; everything happens in [`toscanini::cli`].

fn main() -> std::process::ExitCode {
    toscanini::cli::run(std::env::args_os())
}
