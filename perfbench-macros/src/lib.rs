//! The `#[perfbench]` attribute. Implemented by the harness issue; this crate is a placeholder
//! so the workspace layout is final from the start.
