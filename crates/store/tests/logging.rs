//! `init_logging` in its own test binary (it sets the process's global subscriber once).

use mahjong_store::{Identity, StoreError, init_logging, to_hex};

#[test]
fn events_go_to_a_private_file_in_the_data_dir_and_secrets_do_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    // RUST_LOG is read at start-up; the default level is info.
    let path = init_logging(&data).expect("logging");
    assert_eq!(path, data.join("mahjong.log"));
    let me = Identity::load_or_create(&data, Some("Ann")).expect("identity");
    tracing::info!(player = ?me, "hello from the test");
    tracing::debug!("not at the default level");
    let text = std::fs::read_to_string(&path).expect("log file");
    assert!(text.contains("logging started"), "{text}");
    assert!(text.contains("hello from the test"), "{text}");
    assert!(text.contains("made a new identity key"), "{text}");
    assert!(
        text.contains(&to_hex(me.public().as_bytes())),
        "the public key is logged"
    );
    assert!(
        !text.contains(&to_hex(&me.key.to_bytes())),
        "the secret key is not"
    );
    if std::env::var_os("RUST_LOG").is_none() {
        assert!(!text.contains("not at the default level"), "{text}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // A second global subscriber is refused with a clear error.
    assert!(matches!(init_logging(&data), Err(StoreError::Logging(_))));
}
