//! dcl-tui's tests in one binary: widget snapshots (ratatui's TestBackend + insta), the
//! session adapter on recorded lines, and end-to-end runs of the real `dcl` in a
//! pseudo-terminal on the mock model.

mod adapter;
mod e2e;
mod snapshots;
