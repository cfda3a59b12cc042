//! comparison
