//! For a Windows build: the app's icon (`assets/icons/shanghai-mahjong.ico`) and its version
//! information go into the exe as resources, compiled by MinGW's `windres`
//! (`x86_64-w64-mingw32-windres` when cross-building from Linux; `$WINDRES` overrides). Nothing
//! to do for other targets.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=WINDRES");
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    if env("CARGO_CFG_TARGET_OS") != "windows" {
        return;
    }
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let icon = manifest.join("../../assets/icons/shanghai-mahjong.ico");
    println!("cargo:rerun-if-changed={}", icon.display());
    if env("CARGO_CFG_TARGET_ENV") != "gnu" {
        println!(
            "cargo:warning=no icon embedded: only the MinGW (gnu) target compiles resources here"
        );
        return;
    }
    let out = PathBuf::from(env("OUT_DIR"));
    let version: Vec<u32> = env("CARGO_PKG_VERSION")
        .split(['.', '-'])
        .take(3)
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let (a, b, c) = (version[0], version[1], version[2]);
    let rc = out.join("app.rc");
    let icon_path = icon.display().to_string().replace('\\', "/");
    let text = format!(
        r#"#pragma code_page(65001)
1 ICON "{icon_path}"
1 VERSIONINFO
FILEVERSION {a},{b},{c},0
PRODUCTVERSION {a},{b},{c},0
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904B0"
    BEGIN
      VALUE "FileDescription", "Shanghai Mahjong"
      VALUE "ProductName", "Shanghai Mahjong"
      VALUE "FileVersion", "{a}.{b}.{c}"
      VALUE "ProductVersion", "{a}.{b}.{c}"
      VALUE "OriginalFilename", "shanghai-mahjong.exe"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
"#
    );
    std::fs::write(&rc, text).expect("write app.rc");
    let windres = match std::env::var("WINDRES") {
        Ok(w) => w,
        Err(_) if env("HOST") == env("TARGET") => "windres".into(),
        Err(_) => format!("{}-w64-mingw32-windres", env("CARGO_CFG_TARGET_ARCH")),
    };
    let obj = out.join("app-resources.o");
    let status = Command::new(&windres)
        .args(["--input-format=rc", "--output-format=coff", "-i"])
        .arg(&rc)
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap_or_else(|e| panic!("{windres} (MinGW-w64's binutils) does not run: {e}"));
    assert!(status.success(), "{windres} failed on {}", rc.display());
    println!("cargo:rustc-link-arg-bins={}", obj.display());
}
