//! Architecture-specific register reads (`rdpmc`, `mrs`). (Being written.)
