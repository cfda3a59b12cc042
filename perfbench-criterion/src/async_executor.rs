//! criterion's `async_executor` module: the [`AsyncExecutor`] trait (perfbench's, whose one
//! method is criterion's) and the executors criterion's features name, each behind the same
//! feature: `async_futures` (`FuturesExecutor`), `async_smol` (`SmolExecutor`),
//! `async_tokio` (`tokio::runtime::Runtime` and `&Runtime` are executors). `async_std`'s
//! executor is not offered (async-std is discontinued); an executor of one's own implements
//! the trait. `Bencher::to_async` takes any of them.

pub use perfbench::harness::executor::AsyncExecutor;
#[cfg(feature = "async_futures")]
pub use perfbench::harness::executor::FuturesExecutor;
#[cfg(feature = "async_smol")]
pub use perfbench::harness::executor::SmolExecutor;
