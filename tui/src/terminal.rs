//! The terminal's modes: raw input, bracketed paste and keyboard enhancement on while the
//! UI runs, and put back on every way out — a normal return, an error, a panic (the hook
//! below) and SIGHUP/SIGTERM (the event loop returns, and this guard drops).

use std::io::{Write, stdout};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{self, LeaveAlternateScreen};
use crossterm::{cursor, execute};

/// Whether the modes are on now: restoring twice (a panic inside the guard's scope) must
/// not pop a keyboard mode nobody pushed.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static KEYBOARD_PUSHED: AtomicBool = AtomicBool::new(false);
static ALTERNATE: AtomicBool = AtomicBool::new(false);

/// The full-screen transcript view draws on the alternate screen, leaving the inline
/// history in the scrollback untouched.
pub fn enter_alternate() -> std::io::Result<()> {
    execute!(stdout(), crossterm::terminal::EnterAlternateScreen)?;
    ALTERNATE.store(true, Ordering::SeqCst);
    Ok(())
}

pub fn leave_alternate() -> std::io::Result<()> {
    if ALTERNATE.swap(false, Ordering::SeqCst) {
        execute!(stdout(), LeaveAlternateScreen)?;
    }
    Ok(())
}

/// Holds the terminal in the UI's modes; dropping it restores them.
pub struct TerminalGuard(());

impl TerminalGuard {
    pub fn enter() -> std::io::Result<TerminalGuard> {
        install_panic_hook();
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = stdout();
        execute!(out, EnableBracketedPaste)?;
        // Shift+Enter is only told apart from Enter where the terminal speaks the kitty
        // keyboard protocol; elsewhere `\`+Enter gives the new line.
        if terminal::supports_keyboard_enhancement().unwrap_or(false) {
            execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
            KEYBOARD_PUSHED.store(true, Ordering::SeqCst);
        }
        Ok(TerminalGuard(()))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back as it was; does nothing when it already is.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = stdout();
    if KEYBOARD_PUSHED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    if ALTERNATE.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, LeaveAlternateScreen);
    }
    let _ = execute!(out, DisableBracketedPaste, cursor::Show);
    let _ = terminal::disable_raw_mode();
    let _ = out.flush();
}

/// A panic restores the terminal before its message is printed, so the message is
/// readable and the shell is usable.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
