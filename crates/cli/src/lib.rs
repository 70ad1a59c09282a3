//! Nothing: the `mahjong` command is the binary (`src/main.rs`). This library target exists
//! only so that the package's tests can depend on the package itself with the `test-hooks`
//! feature (Cargo takes a dependency's features only from a package with a library), which
//! gives the `mahjong` binary they run the hidden `--test-*` flags of `mahjong play`.
