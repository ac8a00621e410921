//! The `sayso` binary: parse the command line, take the secrets out of the environment (while
//! no other thread runs), start the async runtime, hand over to [`sayso::launch`].

use std::process::ExitCode;

use sayso::cli::Cli;
use sayso::exit;

fn main() -> ExitCode {
    // The sandbox helper runs before everything else (it is on the path of every command).
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == sayso::sandbox::exec::ARG)
    {
        return sayso::sandbox::exec::main();
    }
    sayso::provider::http::install_crypto_provider();
    let cli = Cli::parse_or_exit();
    // SAFETY: no other thread runs yet (the runtime starts below).
    unsafe { sayso::launch::protect_secrets(&cli) };
    // Headless runs on one thread. The TUI keeps its own thread for input and drawing, and the
    // agent (streams, tools) on one worker thread: a second worker was woken to steal the tasks
    // each streamed delta wakes (the connection, the turn), a context switch per delta for
    // nothing — 30 % more CPU while a reply streams (BENCHMARKS.md §19). Blocking work (file
    // tools, searches, checkpoints) runs on tokio's blocking pool either way.
    let interactive = !cli.print && cli.command.is_none();
    let built = if interactive {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let runtime = match built {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sayso: error: cannot start the async runtime: {e}");
            return ExitCode::from(exit::FAILED);
        }
    };
    ExitCode::from(runtime.block_on(sayso::launch::run(cli)))
}
