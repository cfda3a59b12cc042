//! Parsing perf-style event names. (Being written.)
