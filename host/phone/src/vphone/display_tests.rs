//! The virtual phone's display commands: `wm size`, `wm density`,
//! `cmd uimode night`, and the rotation and font-scale settings, each
//! answered as Android answers it and each changing the next dump and
//! screenshot.

use super::*;
use crate::adb::RawScreencap;

fn phone() -> VirtualPhone {
    VirtualPhone::new(super::test_support::TestSetups).unwrap()
}

/// Run; the exit status, stdout and stderr.
fn run(phone: &VirtualPhone, line: &str) -> (u8, String, String) {
    let out = phone.run(line);
    (
        out.exit,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run and require status 0; the stdout.
fn ok(phone: &VirtualPhone, line: &str) -> String {
    let (exit, out, err) = run(phone, line);
    assert_eq!(exit, 0, "{line}: {out}{err}");
    out
}

/// The screenshot's width and height, from `screencap`'s raw header.
fn screen_size(phone: &VirtualPhone) -> (u32, u32) {
    let shot = RawScreencap::parse(&phone.run("screencap").stdout).unwrap();
    (shot.width, shot.height)
}

/// The right edge of the dump's root node: the width it is laid out for.
fn dump_width(phone: &VirtualPhone) -> i32 {
    phone.lock().sim.hierarchy().nodes[0].bounds.right
}

#[test]
fn wm_size_overrides_and_resets_the_display_as_android_prints_it() {
    let phone = phone();
    assert_eq!(ok(&phone, "wm size"), "Physical size: 1080x2400\n");
    assert_eq!(ok(&phone, "wm size 720x1600"), "");
    assert_eq!(
        ok(&phone, "wm size"),
        "Physical size: 1080x2400\nOverride size: 720x1600\n"
    );
    assert_eq!(screen_size(&phone), (720, 1600));
    assert_eq!(dump_width(&phone), 720);
    assert!(ok(&phone, "dumpsys display").contains("logicalFrame=Rect(0, 0 - 720, 1600)"));
    assert!(ok(&phone, "dumpsys input").contains("      SurfaceWidth: 720px\n"));
    assert_eq!(ok(&phone, "wm size reset"), "");
    assert_eq!(ok(&phone, "wm size"), "Physical size: 1080x2400\n");
    assert_eq!(screen_size(&phone), (1080, 2400));
    // px and dp suffixes, as WindowManagerShellCommand.parseDimension takes them.
    ok(&phone, "wm size 400dpx800px");
    assert!(ok(&phone, "wm size").ends_with("Override size: 1050x800\n"));
    assert_eq!(
        run(&phone, "wm size big"),
        (255, String::new(), "Error: bad size big\n".into())
    );
}

#[test]
fn wm_density_overrides_and_resets_the_density_as_android_prints_it() {
    let phone = phone();
    assert_eq!(ok(&phone, "wm density"), "Physical density: 420\n");
    let before = phone.lock().sim.hierarchy();
    ok(&phone, "wm density 320");
    assert_eq!(
        ok(&phone, "wm density"),
        "Physical density: 420\nOverride density: 320\n"
    );
    assert_eq!(phone.lock().sim.display().dpi, 320);
    assert_ne!(phone.lock().sim.hierarchy(), before, "the layout shrinks");
    ok(&phone, "wm density reset");
    assert_eq!(ok(&phone, "wm density"), "Physical density: 420\n");
    assert_eq!(phone.lock().sim.hierarchy(), before);
    assert_eq!(
        run(&phone, "wm density 50"),
        (255, String::new(), "Error: density must be >= 72\n".into())
    );
    assert_eq!(run(&phone, "wm density lots").0, 255);
}

#[test]
fn cmd_uimode_night_sets_and_prints_the_night_mode() {
    let phone = phone();
    assert_eq!(ok(&phone, "cmd uimode night"), "Night mode: no\n");
    assert_eq!(ok(&phone, "cmd uimode night yes"), "Night mode: yes\n");
    assert_eq!(ok(&phone, "settings get secure ui_night_mode"), "2\n");
    assert_eq!(
        crate::sim::Theme::of(phone.lock().sim.state()),
        crate::sim::Theme::Dark
    );
    assert_eq!(ok(&phone, "cmd uimode night no"), "Night mode: no\n");
    ok(&phone, "settings put secure ui_night_mode 2");
    assert_eq!(ok(&phone, "cmd uimode night"), "Night mode: yes\n");
    assert_eq!(ok(&phone, "cmd uimode night auto"), "Night mode: auto\n");
    let (exit, _, err) = run(&phone, "cmd uimode night maybe");
    assert_eq!(exit, 255);
    assert!(
        err.starts_with("Error: mode must be 'yes', 'no', or 'auto'"),
        "{err}"
    );
}

#[test]
fn user_rotation_with_auto_rotate_off_turns_the_screen() {
    let phone = phone();
    ok(&phone, "settings put system user_rotation 1");
    assert_eq!(screen_size(&phone), (1080, 2400), "auto-rotate is on");
    ok(&phone, "settings put system accelerometer_rotation 0");
    assert_eq!(screen_size(&phone), (2400, 1080));
    assert_eq!(dump_width(&phone), 2400);
    assert_eq!(phone.lock().sim.hierarchy().rotation, 1);
    let display = ok(&phone, "dumpsys display");
    assert!(display.contains(", orientation=1, "), "{display}");
    assert!(display.contains("logicalFrame=Rect(0, 0 - 2400, 1080)"));
    assert!(ok(&phone, "dumpsys input").contains("      SurfaceOrientation: 1\n"));
    // `wm size` names the panel in its natural orientation, as Android does.
    assert_eq!(ok(&phone, "wm size"), "Physical size: 1080x2400\n");
    ok(&phone, "settings put system user_rotation 0");
    assert_eq!(screen_size(&phone), (1080, 2400));
}

#[test]
fn font_scale_written_over_adb_grows_the_next_dump() {
    let phone = phone();
    ok(&phone, "am start -a android.settings.SETTINGS");
    let before = ok(&phone, "uiautomator dump /dev/tty");
    ok(&phone, "settings put system font_scale 1.3");
    let after = ok(&phone, "uiautomator dump /dev/tty");
    assert!(
        before.contains("bounds=\"[189,642][1017,712]\""),
        "{before}"
    );
    assert!(after.contains("bounds=\"[189,642][1017,733]\""), "{after}");
}
