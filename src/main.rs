//! The `toscanini` command: arguments parsed and results printed by
//! [`cli`]; the work is the library's ([`toscanini::compile`]).

#![warn(unreachable_pub)]

mod cli;

/// mimalloc instead of the system allocator: with glibc's per-thread
/// arenas the parallel renderers kept resident nearly twice the heap they
/// used (670 MB for a 387 MB peak at 10k nodes), and allocation was a
/// fifth of the run time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    purge_freed_memory_soon();
    cli::run(std::env::args_os())
}

/// mimalloc 3 returns freed memory to the system a second after it is
/// freed; in that second a large plan's rendering allocates hundreds of
/// megabytes more. With 10 ms (mimalloc 2's delay) the resident peak of
/// 100k nodes from YAML fell from 1.21 to 1.01 GiB, of 10k nodes from XML
/// from 166 to 107 MB, for 2 to 3 % more wall time at 10k.
/// `mimalloc.h`: `mi_option_purge_delay`, the 16th option.
fn purge_freed_memory_soon() {
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: setting an option is a store into mimalloc's option table,
    // made here before any other thread exists; no memory is touched.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10);
    }
}
