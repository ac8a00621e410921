//! Terminal setup and restore (SPEC §6.5).
//!
//! Entering switches to raw mode and the alternate screen, turns on bracketed paste, focus
//! reporting (a long turn that ends unfocused is announced) and mouse capture (unless
//! `ui.mouse = false`, which leaves native selection alone); [`enhance_keyboard`] adds the
//! keyboard enhancement that reports Shift+Enter where the terminal supports it. [`restore`]
//! undoes all of it, is idempotent, and runs on normal exit, from the panic hook, and on
//! SIGTERM / SIGHUP / SIGINT — so the shell gets its echo and line editing back whatever happens.

use std::io::{Write, stdout};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};

static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Bit 0: mouse capture on; bit 1: keyboard enhancement pushed.
static FEATURES: AtomicU8 = AtomicU8::new(0);

pub fn enter(mouse: bool) -> std::io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = stdout();
    execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableFocusChange,
        cursor::Hide
    )?;
    let mut features = 0;
    if mouse {
        execute!(out, EnableMouseCapture)?;
        features |= 1;
    }
    FEATURES.store(features, Ordering::SeqCst);
    install_panic_hook();
    Ok(())
}

/// Turns on the keyboard enhancement that reports Shift+Enter, where the terminal supports it.
/// Asking is a round trip to the terminal (a query and its answer; up to 2 s when none comes),
/// so the TUI asks once its first frame is out, before it reads the first key: the frame does
/// not wait for the answer (over SSH, a network round trip). Call after [`enter`], while no
/// key reader (`EventStream`) is waiting: it reads the answer from the same reader.
pub fn enhance_keyboard() {
    if !ACTIVE.load(Ordering::SeqCst)
        || !crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false)
    {
        return;
    }
    let pushed = execute!(
        stdout(),
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    );
    if pushed.is_ok() {
        FEATURES.fetch_or(2, Ordering::SeqCst);
    }
}

/// Puts the terminal back as it was. Safe to call more than once, and from a panic.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = stdout();
    let features = FEATURES.swap(0, Ordering::SeqCst);
    if features & 2 != 0 {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    if features & 1 != 0 {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = execute!(
        out,
        DisableBracketedPaste,
        DisableFocusChange,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = out.flush();
}

thread_local! {
    /// Set while [`catching`] runs code whose panics are caught and handled.
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, catching a panic, without the panic hook treating it as a crash (the terminal
/// stays as it is; the panic is logged).
pub fn catching<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    CATCHING.with(|c| c.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(false));
    r
}

/// A panic on the UI thread is a crash: restore the terminal, then report it as usual. A panic
/// on another thread (a tool's function, which the engine catches and reports as a tool error)
/// must not touch the screen: it goes to the log only.
fn install_panic_hook() {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let ui_thread = std::thread::current().id();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let caught = CATCHING.with(|c| c.get());
        if !caught && (std::thread::current().id() == ui_thread || !ACTIVE.load(Ordering::SeqCst)) {
            restore();
            previous(info);
        } else {
            tracing::error!("panic off the UI thread: {info}");
        }
    }));
}

/// Restores the terminal when dropped (normal exit and early returns).
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}
