//! Code shared by the integration tests.

pub mod rng;
pub mod schema_validator;
