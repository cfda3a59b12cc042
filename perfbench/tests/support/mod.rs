//! Code shared by the integration tests.

pub mod schema_validator;
