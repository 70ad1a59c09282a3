//! The store through its real interfaces: real SQLite files and key files in temporary
//! directories, four real table clients playing with bots, restarts and crashes.

mod contacts;
mod crash;
mod database;
mod export;
mod figures;
mod harness;
mod play;
mod stats;
