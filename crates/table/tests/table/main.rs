//! Table scenarios: four in-memory clients over a simulated network.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod adversary;
mod attack;
mod audit;
mod bytes;
mod fuzz;
mod honest;
mod kept;
mod lying;
mod session;
mod silent;
mod sim;
mod swap;
mod watch;
