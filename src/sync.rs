//! The one way a mutex is taken here: a thread that panicked while holding
//! it leaves it poisoned, and the others go on with what it holds rather
//! than panic too (every value behind these locks stays whole between
//! statements).

use std::sync::{Mutex, MutexGuard, PoisonError};

/// The lock, poisoned or not.
pub fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
