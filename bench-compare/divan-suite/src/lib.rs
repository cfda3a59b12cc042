//! Empty: the benchmarks are in benches/suite.rs.
