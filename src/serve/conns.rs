//! Who holds the server's connections: at most [`MAX_CONNECTIONS`] at once, and at
//! most `max_per_client` from one address.
//!
//! A newcomer over either limit takes the place of the oldest idle connection (one
//! with no request being answered: silent, between requests, or trickling a head):
//! of its own address for the per-address limit, of any address for the total. So
//! idle and trickling connections never keep a new client waiting, and one address
//! can only ever push out its own. A newcomer whose address already holds its limit
//! of connections, every one with an answer under way, is refused; while the server
//! holds its total of such busy connections, newcomers wait for one to end.
//!
//! Invariants: every admitted connection has one entry in `open`, keyed by the order
//! of admission (oldest first), from [`Registry::admit`] until its [`Guard`] drops.
//! An entry told to close (`evicted`) counts in `open` until then (the total is a hard
//! bound) but no longer in `per_client`, which counts the others by address;
//! `closing` counts the evicted entries. Everything is changed under the one lock.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// Most connections open at once.
pub const MAX_CONNECTIONS: usize = 512;

/// One admitted connection, as its task and the registry share it.
pub struct Slot {
    ip: IpAddr,
    /// Requests of this connection being answered now.
    busy: AtomicUsize,
    /// Raised once when the connection is to make room for a newcomer.
    evict: Notify,
}

impl Slot {
    /// Whether an answer is under way (then the connection is closed after it).
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > 0
    }

    /// Wait until the connection is told to make room.
    pub async fn evicted(&self) {
        self.evict.notified().await;
    }

    /// Mark one request as being answered until the returned value drops.
    pub fn answering(self: &Arc<Self>) -> Answering {
        self.busy.fetch_add(1, Ordering::SeqCst);
        Answering(Arc::clone(self))
    }
}

/// A request being answered (see [`Slot::answering`]).
pub struct Answering(Arc<Slot>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

struct Entry {
    slot: Arc<Slot>,
    evicted: bool,
}

#[derive(Default)]
struct State {
    next: u64,
    open: BTreeMap<u64, Entry>,
    per_client: HashMap<IpAddr, usize>,
    closing: usize,
}

impl State {
    /// Tell the oldest idle connection (of `ip` if given) to close; whether there was
    /// one.
    fn evict_oldest_idle(&mut self, ip: Option<IpAddr>) -> bool {
        let Some(entry) = self
            .open
            .values_mut()
            .find(|e| !e.evicted && !e.slot.busy() && ip.is_none_or(|ip| e.slot.ip == ip))
        else {
            return false;
        };
        entry.evicted = true;
        // Kept for the connection's task if it is not waiting yet.
        entry.slot.evict.notify_one();
        let ip = entry.slot.ip;
        self.closing += 1;
        self.uncount(ip);
        true
    }

    fn uncount(&mut self, ip: IpAddr) {
        if let Some(n) = self.per_client.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(&ip);
            }
        }
    }
}

/// Why a newcomer was not admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Its address.
    pub ip: IpAddr,
    /// The limit it reached.
    pub limit: usize,
}

enum Try {
    Admitted(Guard),
    Refused(Refused),
    /// The total is reached: wait for a connection to end.
    Full,
}

/// The connections of one server.
pub struct Registry {
    state: Mutex<State>,
    /// Raised whenever a connection ends.
    freed: Notify,
    max_per_client: usize,
}

impl Registry {
    /// A registry admitting at most `max_per_client` connections from one address
    /// (at least one).
    pub fn new(max_per_client: usize) -> Arc<Registry> {
        Arc::new(Registry {
            state: Mutex::new(State::default()),
            freed: Notify::new(),
            max_per_client: max_per_client.max(1),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing here panics while holding the lock; should it, the counts are whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admit a connection from `ip`, making room as the module says; waits only
    /// while every place is taken by a connection with an answer under way (or one
    /// that was told to close and has not yet).
    ///
    /// # Errors
    /// [`Refused`] when every connection `ip` may hold is busy.
    pub async fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Guard, Refused> {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before looking, so that an end in between is not missed.
            freed.as_mut().enable();
            match self.try_admit(ip) {
                Try::Admitted(guard) => return Ok(guard),
                Try::Refused(r) => return Err(r),
                Try::Full => freed.await,
            }
        }
    }

    fn try_admit(self: &Arc<Self>, ip: IpAddr) -> Try {
        let mut state = self.lock();
        if state.per_client.get(&ip).copied().unwrap_or(0) >= self.max_per_client
            && !state.evict_oldest_idle(Some(ip))
        {
            return Try::Refused(Refused {
                ip,
                limit: self.max_per_client,
            });
        }
        if state.open.len() - state.closing >= MAX_CONNECTIONS {
            state.evict_oldest_idle(None);
        }
        if state.open.len() >= MAX_CONNECTIONS {
            return Try::Full;
        }
        let id = state.next;
        state.next += 1;
        let slot = Arc::new(Slot {
            ip,
            busy: AtomicUsize::new(0),
            evict: Notify::new(),
        });
        state.open.insert(
            id,
            Entry {
                slot: Arc::clone(&slot),
                evicted: false,
            },
        );
        *state.per_client.entry(ip).or_insert(0) += 1;
        Try::Admitted(Guard {
            registry: Arc::clone(self),
            id,
            slot,
        })
    }
}

/// An admitted connection's place, given up when it drops.
pub struct Guard {
    registry: Arc<Registry>,
    id: u64,
    slot: Arc<Slot>,
}

impl Guard {
    /// What the connection's task watches and marks.
    pub fn slot(&self) -> &Arc<Slot> {
        &self.slot
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut state = self.registry.lock();
        if let Some(entry) = state.open.remove(&self.id) {
            if entry.evicted {
                state.closing -= 1;
            } else {
                state.uncount(entry.slot.ip);
            }
        }
        drop(state);
        self.registry.freed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    fn admit(r: &Arc<Registry>, ip: IpAddr) -> Guard {
        match r.try_admit(ip) {
            Try::Admitted(g) => g,
            _ => panic!("{ip} not admitted"),
        }
    }

    fn evicted(g: &Guard) -> bool {
        g.registry.lock().open.get(&g.id).is_some_and(|e| e.evicted)
    }

    #[test]
    fn an_address_over_its_limit_pushes_out_its_own_oldest_idle_connection() {
        let r = Registry::new(2);
        let a = admit(&r, ip(1));
        let b = admit(&r, ip(1));
        let other = admit(&r, ip(2));
        let _busy = b.slot().answering();
        let c = admit(&r, ip(1));
        assert!(evicted(&a) && !evicted(&b) && !evicted(&other));
        // Two busy connections: the third is refused, naming the limit.
        let _busy_c = c.slot().answering();
        match r.try_admit(ip(1)) {
            Try::Refused(refused) => assert_eq!(
                refused,
                Refused {
                    ip: ip(1),
                    limit: 2
                }
            ),
            _ => panic!("admitted over the limit"),
        }
        // Another address is not affected; an ended connection frees its place.
        drop(admit(&r, ip(2)));
        drop(_busy_c);
        drop(c);
        let d = admit(&r, ip(1));
        assert!(!evicted(&b) && !evicted(&d));
        drop(a);
        assert_eq!(r.lock().closing, 0);
        assert_eq!(r.lock().per_client.get(&ip(1)), Some(&2));
    }

    #[test]
    fn at_the_total_the_oldest_idle_connection_of_any_address_makes_room() {
        let r = Registry::new(MAX_CONNECTIONS);
        let first = admit(&r, ip(1));
        let rest: Vec<Guard> = (1..MAX_CONNECTIONS).map(|_| admit(&r, ip(2))).collect();
        let _busy = first.slot().answering();
        // The oldest idle one is told to close, and holds its place until it has.
        assert!(matches!(r.try_admit(ip(3)), Try::Full));
        assert!(!evicted(&first) && evicted(&rest[0]));
        assert!(matches!(r.try_admit(ip(3)), Try::Full));
        assert!(!evicted(&rest[1]), "more made room than needed");
        drop(rest);
        assert!(matches!(r.try_admit(ip(3)), Try::Admitted(_)));
    }
}
