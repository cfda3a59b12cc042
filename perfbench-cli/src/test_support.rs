//! Test support shared with the library: its report fixtures (`perfbench/src/model/`,
//! compiled there into the library's own unit tests only) and the JSON schema validator of the
//! tests (`perfbench/tests/support/`), compiled into the tool's unit tests by `#[path]`. The
//! fixtures name the model's items through `super`: this module re-exports them.

pub(crate) use perfbench_analysis::model::*;

// Not every fixture is used here.
#[allow(dead_code)]
#[path = "../../perfbench-analysis/src/model/fixtures.rs"]
pub(crate) mod fixtures;

#[path = "../../perfbench-analysis/tests/support/schema_validator.rs"]
mod schema_validator;
pub(crate) use schema_validator::Validator;
