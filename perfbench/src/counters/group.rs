//! Counter groups. (Being written.)

/// Placeholder until the group code lands.
pub struct Counters;
