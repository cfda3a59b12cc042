//! sysfs PMU discovery. (Being written.)
