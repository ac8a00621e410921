//! Link options for the release binary on x86_64 Linux (glibc), where rustc links with its own
//! lld: the code start-up and a chat run is laid out together (`assets/link/sayso.order`, made
//! by `scripts/order_file.sh`), and relative relocations are packed (`DT_RELR`). Both only
//! change where bytes sit in the file, not what the program does: a function missing from the
//! order file is placed after those in it, and a stale file costs memory, never correctness.
//! Why: the kernel maps a binary's code 64 KiB around each page touched, and start-up touched
//! code all over the 8 MB of text, so 7 MB of it was resident in an idle TUI (BENCHMARKS.md
//! §19). Anywhere else — another target, another linker, a debug build — nothing is added.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    const ORDER: &str = "assets/link/sayso.order";
    println!("cargo:rerun-if-changed={ORDER}");
    println!("cargo:rerun-if-changed=build.rs");
    for var in [
        "RUSTC_LINKER",
        "CARGO_ENCODED_RUSTFLAGS",
        "SAYSO_NO_ORDER",
        "SAYSO_LINK_MAP",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let var = |k: &str| env::var(k).unwrap_or_default();
    let rustc_lld = var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        // A linker of the user's choice may not know these options.
        && env::var_os("RUSTC_LINKER").is_none()
        && !["linker", "fuse-ld", "link-self-contained", "link-arg", "link-args"]
            .iter()
            .any(|flag| var("CARGO_ENCODED_RUSTFLAGS").contains(flag));
    if !rustc_lld || var("PROFILE") != "release" || env::var_os("SAYSO_NO_ORDER").is_some() {
        return;
    }
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER);
    // scripts/order_file.sh: where each function landed, to name the code a run executed (the
    // release binary has no symbol table).
    if let Some(map) = env::var_os("SAYSO_LINK_MAP") {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,-Map={}",
            Path::new(&map).display()
        );
    }
    if order.is_file() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
    // DT_RELR needs glibc 2.36 where the binary runs: checked on the machine that builds it,
    // when it builds for itself.
    if var("HOST") == var("TARGET") && glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether this machine's glibc is `major.minor` or newer (`ldd --version`'s first line ends in
/// the version).
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("ldd").arg("--version").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().last())
    else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    matches!(
        (parts.next(), parts.next()),
        (Some(Some(a)), Some(Some(b))) if (a, b) >= (major, minor)
    )
}
