//! The workspace's suites, examples and end-to-end tests; not published.
//!
//! This library holds no code. Its doctests are the Rust blocks of README.md and of the guide
//! in `docs/`, so `cargo test --doc -p perfbench-suites` compiles every one of them (and runs
//! those not marked `no_run`); `tests/docs.rs` checks that every page with a Rust block is
//! included here.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct Readme;

#[cfg(doctest)]
#[doc = include_str!("../docs/writing.md")]
struct GuideWriting;

#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
struct GuideLibrary;

#[cfg(doctest)]
#[doc = include_str!("../docs/migrating.md")]
struct GuideMigrating;
