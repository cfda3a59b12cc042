//! The tool's tests beside its crate root: its command line on odd input (`cli`), and every
//! command line of README and the guide as the tool and the harness parse it (`docs`).

mod cli;
mod docs;
