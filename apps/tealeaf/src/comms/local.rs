//! Ranks as threads of one process: [`LocalComms::group`] gives each thread of a group the
//! communicator of one rank. Sums add the ranks' values in rank order, so a run is
//! deterministic; messages are copied through a shared mailbox. A rank that stops early
//! ([`LocalComms::abort`], or dropping its communicator) releases the others with an error
//! instead of leaving them waiting.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::{Comms, Message};
use crate::{Result, TeaError};

/// What the ranks of a group share, under one lock.
#[derive(Debug, Default)]
struct State {
    /// Ranks arrived at the current barrier.
    arrived: usize,
    /// Barriers passed so far.
    generation: u64,
    /// Why a rank stopped, once one has.
    aborted: Option<String>,
    /// Each rank's values of the sum in progress.
    slots: Vec<Vec<f64>>,
    /// Mail waiting to be received: `(from, to, tag)` to the messages sent, oldest first.
    mail: HashMap<(usize, usize, i32), VecDeque<Vec<f64>>>,
}

#[derive(Debug)]
struct Hub {
    ranks: usize,
    state: Mutex<State>,
    changed: Condvar,
}

/// The communicator of one rank of a group of threads.
#[derive(Debug)]
pub struct LocalComms {
    rank: usize,
    hub: Arc<Hub>,
    done: bool,
}

impl LocalComms {
    /// The communicators of a group of `ranks` ranks (at least 1), in rank order; each goes to
    /// its own thread.
    pub fn group(ranks: usize) -> Vec<LocalComms> {
        let ranks = ranks.max(1);
        let hub = Arc::new(Hub {
            ranks,
            state: Mutex::new(State {
                slots: vec![Vec::new(); ranks],
                ..State::default()
            }),
            changed: Condvar::new(),
        });
        (0..ranks)
            .map(|rank| LocalComms {
                rank,
                hub: hub.clone(),
                done: false,
            })
            .collect()
    }

    /// Stops the group: every rank waiting now or later gets an error naming `why`.
    pub fn abort(&self, why: &str) {
        let mut state = self.state();
        if state.aborted.is_none() {
            state.aborted = Some(format!("rank {} stopped: {why}", self.rank));
        }
        drop(state);
        self.hub.changed.notify_all();
    }

    /// Marks this rank finished: dropping it then aborts nobody.
    pub fn finish(mut self) {
        self.done = true;
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.hub.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits on the group's condition variable, or fails if the group was aborted.
    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> Result<MutexGuard<'a, State>> {
        let state = self
            .hub
            .changed
            .wait(state)
            .unwrap_or_else(|e| e.into_inner());
        match &state.aborted {
            Some(why) => Err(TeaError::Comms(why.clone())),
            None => Ok(state),
        }
    }

    /// The barrier, with the lock held throughout.
    fn barrier_locked<'a>(
        &self,
        mut state: MutexGuard<'a, State>,
    ) -> Result<MutexGuard<'a, State>> {
        if let Some(why) = &state.aborted {
            return Err(TeaError::Comms(why.clone()));
        }
        let generation = state.generation;
        state.arrived += 1;
        if state.arrived == self.hub.ranks {
            state.arrived = 0;
            state.generation += 1;
            self.hub.changed.notify_all();
            return Ok(state);
        }
        while state.generation == generation {
            state = self.wait(state)?;
        }
        Ok(state)
    }
}

impl Drop for LocalComms {
    fn drop(&mut self) {
        if !self.done {
            self.abort("it ended without finishing");
        }
    }
}

impl Comms for LocalComms {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.hub.ranks
    }

    fn name(&self) -> String {
        "threads of one process".to_string()
    }

    fn sum(&self, values: &mut [f64]) -> Result<()> {
        let mut state = self.state();
        state.slots[self.rank] = values.to_vec();
        state = self.barrier_locked(state)?;
        if let Some(bad) = state.slots.iter().position(|s| s.len() != values.len()) {
            return Err(TeaError::Comms(format!(
                "rank {} sums {} values, rank {bad} {}",
                self.rank,
                values.len(),
                state.slots[bad].len()
            )));
        }
        for (i, v) in values.iter_mut().enumerate() {
            *v = state.slots.iter().map(|s| s[i]).sum();
        }
        // Nobody writes the next sum's values before everyone has read this one's.
        drop(self.barrier_locked(state)?);
        Ok(())
    }

    fn exchange(&self, messages: &mut [Message<'_>]) -> Result<()> {
        let mut state = self.state();
        for m in messages.iter() {
            if m.neighbour >= self.hub.ranks {
                return Err(TeaError::Comms(format!(
                    "rank {} sends to rank {}, of {} ranks",
                    self.rank, m.neighbour, self.hub.ranks
                )));
            }
            state
                .mail
                .entry((self.rank, m.neighbour, m.send_tag))
                .or_default()
                .push_back(m.send.to_vec());
        }
        self.hub.changed.notify_all();
        for m in messages.iter_mut() {
            let key = (m.neighbour, self.rank, m.recv_tag);
            let data = loop {
                if let Some(data) = state.mail.get_mut(&key).and_then(VecDeque::pop_front) {
                    break data;
                }
                state = self.wait(state)?;
            };
            if data.len() != m.recv.len() {
                return Err(TeaError::Comms(format!(
                    "rank {} expects {} values from rank {} (tag {}), which sent {}",
                    self.rank,
                    m.recv.len(),
                    m.neighbour,
                    m.recv_tag,
                    data.len()
                )));
            }
            m.recv.copy_from_slice(&data);
        }
        Ok(())
    }

    fn barrier(&self) -> Result<()> {
        drop(self.barrier_locked(self.state())?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_messages_between_threads() {
        let group = LocalComms::group(3);
        let results: Vec<(f64, Vec<f64>)> = std::thread::scope(|s| {
            let handles: Vec<_> = group
                .into_iter()
                .map(|c| {
                    s.spawn(move || {
                        let r = c.rank();
                        let mut v = [r as f64 + 1.0];
                        c.sum(&mut v).unwrap();
                        // Each rank swaps a message with each other rank.
                        let send = vec![r as f64; 4];
                        let (mut a, mut b) = (vec![0.0; 4], vec![0.0; 4]);
                        let (n1, n2) = ((r + 1) % 3, (r + 2) % 3);
                        c.exchange(&mut [
                            Message {
                                neighbour: n1,
                                send_tag: 7,
                                recv_tag: 7,
                                send: &send,
                                recv: &mut a,
                            },
                            Message {
                                neighbour: n2,
                                send_tag: 7,
                                recv_tag: 7,
                                send: &send,
                                recv: &mut b,
                            },
                        ])
                        .unwrap();
                        let recv = [a[0], b[3]].to_vec();
                        c.barrier().unwrap();
                        c.finish();
                        (v[0], recv)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(results[0], (6.0, vec![1.0, 2.0]));
        assert_eq!(results[1], (6.0, vec![2.0, 0.0]));
        assert_eq!(results[2], (6.0, vec![0.0, 1.0]));
    }

    #[test]
    fn a_rank_that_stops_releases_the_others() {
        let mut group = LocalComms::group(2);
        let second = group.pop().unwrap();
        let first = group.pop().unwrap();
        let waiter = std::thread::spawn(move || first.sum(&mut [1.0]).unwrap_err().to_string());
        drop(second);
        let e = waiter.join().unwrap();
        assert!(e.contains("rank 1 stopped"), "{e}");
    }
}
