//! The log a replica holds: step numbers and chain hashes, the steps in memory (all of them,
//! or the recent hands of a client that keeps its log in the store), forgetting older ones,
//! and checking steps read back from the store against the chain.

use super::*;

impl Replica {
    /// The next step number.
    pub fn next_seq(&self) -> u32 {
        self.base + self.log.len() as u32
    }

    /// The log hash through the last step.
    pub fn head(&self) -> Hash {
        self.heads.last().copied().unwrap_or(self.base_head)
    }

    /// The log hash through step `seq - 1` (the `prev_hash` of step `seq`), while step `seq`
    /// is held in memory or next.
    pub fn prev_of(&self, seq: u32) -> Option<Hash> {
        match seq.checked_sub(self.base)? {
            0 => Some(self.base_head),
            i => self.heads.get(i as usize - 1).copied(),
        }
    }

    /// The first step held in memory (the steps before it are in the seat's store only).
    pub fn base(&self) -> u32 {
        self.base
    }

    /// The steps held in memory, from [`Replica::base`] on.
    pub fn steps(&self) -> &[StepRecord] {
        &self.log
    }

    /// Step `seq`, if it is held in memory.
    pub fn step(&self, seq: u32) -> Option<&StepRecord> {
        self.log.get(seq.checked_sub(self.base)? as usize)
    }

    /// Steps `start..end` (absolute numbers) as far as they are held in memory.
    pub fn logged(&self, start: usize, end: usize) -> &[StepRecord] {
        let b = self.base as usize;
        let len = self.log.len();
        let (s, e) = (
            start.saturating_sub(b).min(len),
            end.saturating_sub(b).min(len),
        );
        &self.log[s..e.max(s)]
    }

    /// Forgets the steps before `seq` (at most up to the next step): they stay in the seat's
    /// store, and their chain is kept in `base_head`.
    pub fn prune_before(&mut self, seq: u32) {
        let seq = seq.min(self.next_seq());
        if seq <= self.base {
            return;
        }
        let n = (seq - self.base) as usize;
        for (i, rec) in self.log[..n].iter().enumerate() {
            if let Some(h) = rec.hand()
                && self.pruned_hands.last().is_none_or(|&(last, _)| last < h)
            {
                self.pruned_hands.push((h, self.base + i as u32));
            }
        }
        self.base_head = self.heads[n - 1];
        self.log.drain(..n);
        self.heads.drain(..n);
        self.base = seq;
    }

    /// Rebuilds the index of forgotten hands from steps `0..base` read from the store (a
    /// replica restored from a checkpoint has none).
    pub fn index_hands(&mut self, steps: &[StepRecord]) {
        let mut index: Vec<(u32, u32)> = Vec::new();
        for (i, rec) in steps.iter().enumerate() {
            if let Some(h) = rec.hand()
                && index.last().is_none_or(|&(last, _)| last < h)
            {
                index.push((h, i as u32));
            }
        }
        self.pruned_hands = index;
    }

    /// Whether `steps` are steps `from..base` of this log: they chain from the first one's
    /// `prev_hash` (the genesis for step 0) to the hash this replica holds for `base - 1`.
    /// What a seat's store hands back is checked so, without the earlier steps.
    pub fn chains_to_base(&self, from: u32, steps: &[StepRecord]) -> bool {
        if from as usize + steps.len() != self.base as usize {
            return false;
        }
        let start = match (from, steps.first().and_then(|r| r.entries.first())) {
            (0, _) => self.genesis,
            (_, Some(e)) => e.prev_hash,
            (_, None) => return steps.is_empty(),
        };
        let mut head = start;
        for (i, rec) in steps.iter().enumerate() {
            if rec.seq() != Some(from + i as u32) {
                return false;
            }
            head = chain(&head, from + i as u32, &rec.entries);
        }
        head == self.base_head
    }

    /// The steps of `hand`, `start..end`, whether held in memory or only in the store (then
    /// from the index kept when they were forgotten).
    pub fn range_of(&self, hand: u32) -> (u32, u32) {
        let (start, end) = self.hand_range(hand);
        if start < end || hand >= self.log.first().and_then(StepRecord::hand).unwrap_or(0) {
            return (start as u32, end as u32);
        }
        let i = self.pruned_hands.partition_point(|&(h, _)| h < hand);
        match self.pruned_hands.get(i) {
            Some(&(h, first)) if h == hand => {
                let next = self.pruned_hands.get(i + 1).map_or(self.base, |&(_, s)| s);
                (first, next)
            }
            Some(&(_, first)) => (first, first),
            None => (self.base, self.base),
        }
    }

    /// The log records of `hand`: `start..end` (empty at `end` when none is logged yet).
    /// Only the steps held in memory are searched: for a hand before them, both are `base`
    /// (see [`Replica::range_of`]).
    pub fn hand_range(&self, hand: u32) -> (usize, usize) {
        let b = self.base as usize;
        let start = self.log.partition_point(|r| r.hand() < Some(hand));
        let end = self.log.partition_point(|r| r.hand() <= Some(hand));
        (b + start, b + end)
    }
}
