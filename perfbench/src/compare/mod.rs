//! Two runs compared (coming in the next commit).
