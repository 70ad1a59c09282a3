//! Integration tests of the bots: legality over random states (property tests), no use of
//! hidden information, determinism, and named situations where the right move is clear.

#![allow(clippy::unwrap_used, missing_docs)]

mod common;
mod hidden;
mod hints;
mod legal;
mod situations;
mod swap;
