//! `exomol::write_line_list` (C `atomgpu_linestrength_write_exomol`) changes the `.states`/
//! `.trans` pair together or not at all. Every way a call can fail after the `.states` file is
//! written (the progress callback stopping it at its first report, its third, its final one or by
//! returning INT32_MIN; a 1 ms time limit; a full disk, made with RLIMIT_FSIZE in a child process;
//! a `.trans` that cannot be replaced) leaves an earlier pair byte for byte and no other file; a
//! call that succeeds replaces both and leaves nothing else, and its files hold the streamed list
//! (`exomol::write_trans` of the lines `line_list_stream` gives) and one `.states` line per state.

use atomgpu::error::Error;
use atomgpu::linestrength::{
    exomol, Action, BlockSpec, Convention, IntensityParams, Line, LineFilters, LineStrength, Options,
};
use atomgpu::progress;
use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};

/// Vibrational functions of the test molecule: blocks J = 0 (K = 0, tau = 0) and J = 1 (K = 0,
/// tau = 1) with N_VIB states each (unit vectors at 100 i and 100 i + 10 cm^-1) and a dipole
/// matrix with no zero element: 1.2e5 pairs judged, ~6e4 lines, a `.trans` file of ~3 MB beside
/// a `.states` file of 22 kB.
const N_VIB: usize = 200;

fn handle() -> LineStrength {
    let dipole: Vec<f64> =
        (0..N_VIB * 3 * N_VIB).map(|i| 0.1 + 0.01 * ((7 * i + 3 * (i / N_VIB)) % 11) as f64).collect();
    let mut h = LineStrength::new(N_VIB, &dipole, N_VIB, Options::default()).unwrap();
    let v: Vec<i64> = (0..N_VIB as i64).collect();
    let k = vec![0; N_VIB];
    let mut vectors = vec![0.0; N_VIB * N_VIB];
    for i in 0..N_VIB {
        vectors[i * (N_VIB + 1)] = 1.0;
    }
    for (j, tau, shift) in [(0u32, 0i32, 0.0), (1, 1, 10.0)] {
        let tau = vec![tau; N_VIB];
        let spec = BlockSpec { j, gamma: 0, gns: 1.0 + 2.0 * j as f64, v: &v, k: &k, tau: &tau, unfolding: None };
        let id = h.add_block(&spec).unwrap();
        let energies: Vec<f64> = (0..N_VIB).map(|i| 100.0 * i as f64 + shift).collect();
        h.set_states(id, &energies, &vectors, N_VIB).unwrap();
    }
    h
}

fn params() -> IntensityParams {
    IntensityParams {
        temperature: 296.0,
        partition_function: 1.0,
        zpe: 0.0,
        freq_window: [-1e9, 1e9],
        lower_energy: [-1e9, 1e9],
        upper_energy: [-1e9, 1e9],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch: 4,
        convention: Convention::Documented,
        action: Action::Absorption,
    }
}

/// A fresh folder for one test (removed when dropped) and its stem `<folder>/list`.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let path = std::env::temp_dir().join(format!("atomgpu-exomol-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    fn stem(&self) -> PathBuf {
        self.0.join("list")
    }

    /// Lays an earlier pair with known contents.
    fn with_old_pair(self) -> Folder {
        std::fs::write(self.0.join("list.states"), OLD_STATES).unwrap();
        std::fs::write(self.0.join("list.trans"), OLD_TRANS).unwrap();
        self
    }

    fn names(&self) -> Vec<String> {
        let mut n: Vec<String> =
            std::fs::read_dir(&self.0).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        n.sort();
        n
    }

    /// The folder holds the earlier pair, byte for byte, and nothing else.
    fn assert_old_pair(&self) {
        assert_eq!(self.names(), ["list.states", "list.trans"]);
        assert_eq!(std::fs::read(self.0.join("list.states")).unwrap(), OLD_STATES);
        assert_eq!(std::fs::read(self.0.join("list.trans")).unwrap(), OLD_TRANS);
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const OLD_STATES: &[u8] = b"an earlier run's .states\n";
const OLD_TRANS: &[u8] = b"an earlier run's .trans\n";

/// What the callback saw: `(calls, last done, last total, task)`, and when it stops: at call
/// `stop_at` (> 0), at the report with done = total (0), or at the first with INT32_MIN (< 0).
struct Record {
    calls: u32,
    stop_at: i32,
    done: f64,
    total: f64,
    task: String,
}

unsafe extern "C" fn callback(user_data: *mut c_void, task: *const c_char, done: f64, total: f64) -> i32 {
    let r = &mut *(user_data as *mut Record);
    r.calls += 1;
    (r.done, r.total) = (done, total);
    r.task = CStr::from_ptr(task).to_string_lossy().into_owned();
    match r.stop_at {
        s if s < 0 => i32::MIN,
        0 => (done == total) as i32,
        s => (r.calls == s as u32) as i32,
    }
}

/// Runs the list into `folder` (an earlier pair there) with a callback stopping at `stop_at`:
/// cancelled, the earlier pair kept. Returns what the callback saw.
fn stopped_by_callback(name: &str, stop_at: i32) -> Record {
    let folder = Folder::new(name).with_old_pair();
    let mut h = handle();
    let mut r = Record { calls: 0, stop_at, done: 0.0, total: 0.0, task: String::new() };
    progress::set_callback(Some(callback), &mut r as *mut Record as *mut c_void, 0.0).unwrap();
    let result = exomol::write_line_list(&mut h, &folder.stem(), &params(), &LineFilters::default());
    progress::set_callback(None, std::ptr::null_mut(), 0.0).unwrap();
    match result {
        Err(Error::Cancelled(m)) => assert!(m.contains("progress callback"), "{m}"),
        other => panic!("{other:?}"),
    }
    folder.assert_old_pair();
    assert_eq!(r.task, "atomgpu_linestrength_write_exomol");
    assert_eq!(r.total, 2.0 * N_VIB as f64);
    r
}

#[test]
fn a_callback_stopping_at_once_keeps_the_earlier_pair() {
    let r = stopped_by_callback("once", 1);
    assert_eq!(r.calls, 1);
    assert!(r.done < r.total);
}

#[test]
fn a_callback_stopping_at_the_third_report_keeps_the_earlier_pair() {
    let r = stopped_by_callback("third", 3);
    assert_eq!(r.calls, 3);
    assert!(r.done < r.total);
}

#[test]
fn a_callback_stopping_at_the_end_keeps_the_earlier_pair() {
    let r = stopped_by_callback("end", 0);
    assert_eq!(r.done, r.total);
    assert!(r.calls > 3, "{} reports", r.calls);
}

#[test]
fn a_callback_returning_int32_min_keeps_the_earlier_pair() {
    let r = stopped_by_callback("int32-min", -1);
    assert_eq!(r.calls, 1);
}

/// The list takes far longer than 1 ms (1.2e5 pairs judged, ~3 MB formatted and synced).
#[test]
fn a_1ms_time_limit_keeps_the_earlier_pair() {
    let folder = Folder::new("time-limit").with_old_pair();
    let mut h = handle();
    progress::set_time_limit(1e-3).unwrap();
    let result = exomol::write_line_list(&mut h, &folder.stem(), &params(), &LineFilters::default());
    progress::set_time_limit(0.0).unwrap();
    match result {
        Err(Error::Cancelled(m)) => assert!(m.contains("time limit"), "{m}"),
        other => panic!("{other:?}"),
    }
    folder.assert_old_pair();
}

/// A folder named `<stem>.trans` (not empty) cannot be replaced by a file: the new `.states`,
/// already renamed into place, is taken back, so the earlier `.states` is there byte for byte.
#[test]
fn a_trans_that_cannot_be_replaced_puts_the_earlier_states_back() {
    let folder = Folder::new("rename");
    std::fs::write(folder.0.join("list.states"), OLD_STATES).unwrap();
    std::fs::create_dir(folder.0.join("list.trans")).unwrap();
    std::fs::write(folder.0.join("list.trans").join("kept"), OLD_TRANS).unwrap();
    let mut h = handle();
    match exomol::write_line_list(&mut h, &folder.stem(), &params(), &LineFilters::default()) {
        Err(Error::Io(m)) => assert!(m.contains("list.trans") && m.contains("kept as it was"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(folder.names(), ["list.states", "list.trans"]);
    assert_eq!(std::fs::read(folder.0.join("list.states")).unwrap(), OLD_STATES);
    assert_eq!(std::fs::read(folder.0.join("list.trans").join("kept")).unwrap(), OLD_TRANS);
    // With no earlier .states the new one is removed.
    std::fs::remove_file(folder.0.join("list.states")).unwrap();
    assert!(exomol::write_line_list(&mut h, &folder.stem(), &params(), &LineFilters::default()).is_err());
    assert_eq!(folder.names(), ["list.trans"]);
}

/// A call that succeeds over an earlier pair replaces both files and leaves nothing else; the
/// files hold the streamed list and one line per state.
#[test]
fn a_call_that_succeeds_replaces_the_pair_and_leaves_nothing_else() {
    let folder = Folder::new("replace").with_old_pair();
    let mut h = handle();
    let mut lines: Vec<Line> = Vec::new();
    h.line_list_stream(&params(), &LineFilters::default(), &mut |batch| {
        lines.extend_from_slice(batch);
        Ok(())
    })
    .unwrap();
    let counts = exomol::write_line_list(&mut h, &folder.stem(), &params(), &LineFilters::default()).unwrap();
    assert_eq!(folder.names(), ["list.states", "list.trans"]);
    assert!(lines.len() > 50_000, "{} lines", lines.len());
    assert_eq!(counts.kept, lines.len() as u64);
    let mut expected = Vec::new();
    exomol::write_trans(&lines, &mut expected).unwrap();
    assert_eq!(std::fs::read(folder.0.join("list.trans")).unwrap(), expected);
    let states = std::fs::read_to_string(folder.0.join("list.states")).unwrap();
    assert_eq!(states.lines().count(), 2 * N_VIB);
}

/// The environment variable naming the folder of the full-disk child.
const FULL_DISK_FOLDER: &str = "ATOMGPU_TEST_FULL_DISK_FOLDER";

/// A full disk after the `.states` file: this test binary runs `full_disk_child` in a child
/// process whose files may grow to 64 KiB only (RLIMIT_FSIZE; SIGXFSZ ignored, so that a write
/// past it fails with EFBIG instead of killing the process): the `.states` file (400 lines of 55
/// bytes, 22 kB) fits and the `.trans` file (~6e4 lines of 53 bytes) does not. The child asserts
/// an I/O error naming the `.trans` file; here the earlier pair must be there byte for byte.
#[test]
fn a_full_disk_after_the_states_file_keeps_the_earlier_pair() {
    use std::os::unix::process::CommandExt;
    let folder = Folder::new("full-disk").with_old_pair();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", "full_disk_child", "--include-ignored", "--nocapture", "--test-threads", "1"]);
    child.env(FULL_DISK_FOLDER, &folder.0);
    // SAFETY: setrlimit and signal are async-signal-safe, as the child between fork and exec needs.
    unsafe {
        child.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit { rlim_cur: 64 * 1024, rlim_max: libc::RLIM_INFINITY };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = child.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("1 passed"), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    folder.assert_old_pair();
}

/// The child of `a_full_disk_after_the_states_file_keeps_the_earlier_pair` (run only by it).
#[test]
#[ignore = "run by a_full_disk_after_the_states_file_keeps_the_earlier_pair in a process with RLIMIT_FSIZE"]
fn full_disk_child() {
    let folder = PathBuf::from(std::env::var_os(FULL_DISK_FOLDER).expect("run by the full-disk test"));
    let mut h = handle();
    match exomol::write_line_list(&mut h, &folder.join("list"), &params(), &LineFilters::default()) {
        // EFBIG: "File too large".
        Err(Error::Io(m)) => assert!(m.contains("list.trans") && m.contains("too large"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(Path::new(&folder).join("list.states").exists());
}
