//! What a long computation tells of its progress: phases and units of work done.

/// Receives the progress of a generation or a check. All methods default to doing
/// nothing.
pub trait Observer: Sync {
    /// A new phase starts, with `work` units to do (0 when unknown).
    fn phase(&self, _name: &str, _work: u64) {}
    /// `done` more units of the current phase are finished.
    fn advance(&self, _done: u64) {}
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}
