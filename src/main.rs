//! The `toscanini` command; everything happens in [`toscanini::cli`].

/// mimalloc instead of the system allocator: with glibc's per-thread
/// arenas the parallel renderers kept resident nearly twice the heap they
/// used (670 MB for a 387 MB peak at 10k nodes), and allocation was a
/// fifth of the run time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    toscanini::cli::run(std::env::args_os())
}
