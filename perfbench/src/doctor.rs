//! Diagnostics. (Being written.)
