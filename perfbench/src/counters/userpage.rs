//! The user-page fast-path reader. (Being written.)
