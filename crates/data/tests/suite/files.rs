//! The data readers take regular files only: a device or a FIFO is refused before a byte is read
//! (`/dev/zero` is endless, a FIFO without a writer blocks forever), with an error naming the file.

use gradfree_data::{DataError, read_matrix};

#[test]
fn readers_refuse_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    // A link with a data-file name to an endless device.
    let zero = dir.path().join("zero.npy");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    // A FIFO nobody writes to.
    let fifo = dir.path().join("pipe.csv");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // A folder with a data-file name.
    let folder = dir.path().join("folder.csv");
    std::fs::create_dir(&folder).unwrap();
    for path in [&zero, &fifo, &folder] {
        let e = read_matrix(path).unwrap_err();
        assert!(matches!(e, DataError::File { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&path.display().to_string()) && msg.contains("expected a file"), "{msg}");
    }
    // A regular file is read.
    let ok = dir.path().join("x.csv");
    std::fs::write(&ok, "a,b\n1,2\n3,4\n").unwrap();
    let m = read_matrix(&ok).unwrap();
    assert_eq!((m.rows, m.cols, m.values), (2, 2, vec![1.0, 2.0, 3.0, 4.0]));
}

#[test]
fn a_missing_bundled_or_labeled_name_lists_the_known_ones() {
    let e = gradfree_data::load("nope").unwrap_err();
    assert!(matches!(e, DataError::Unknown { .. }) && e.to_string().contains("breast-cancer, digits-odd-even"), "{e}");
    let e = gradfree_data::load_labeled("nope").unwrap_err();
    assert!(e.to_string().contains("fashion-mnist, dna"), "{e}");
}
