//! The real data sets, read from the files their Debian packages install (`.ci/run` installs
//! `dataset-fashion-mnist` and `r-cran-mlbench`). Expected values were read with R
//! (`load("DNA.rda"); table(DNA$Class)`) and from the Fashion-MNIST paper's class balance.

use gradfree_data::DataError;
use gradfree_data::labeled::{dna, dna_from, fashion_mnist, fashion_mnist_from};

#[test]
fn dna_matches_r() {
    let d = dna().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((d.n, d.d), (3186, 180));
    assert_eq!(d.classes, ["ei", "ie", "n"]);
    let count = |c: u32| d.labels.iter().filter(|&&l| l == c).count();
    assert_eq!((count(0), count(1), count(2)), (767, 765, 1654));
    // R: DNA[1, 1:10] is 0 1 0 0 0 0 1 0 0 0, and DNA$Class[1:5] is n n n ei ie.
    assert_eq!(&d.row(0)[..10], &[0., 1., 0., 0., 0., 0., 1., 0., 0., 0.]);
    assert_eq!(&d.labels[..5], &[2, 2, 2, 0, 1]);
    assert!(d.x.iter().all(|&v| v == 0.0 || v == 1.0));
}

#[test]
fn fashion_mnist_shape_and_balance() {
    let f = fashion_mnist().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((f.n, f.d), (70_000, 784));
    for c in 0..10 {
        assert_eq!(f.labels.iter().filter(|&&l| l == c).count(), 7000, "class {c}");
    }
    // The first training image is an ankle boot (label 9); pixels lie in [0, 1].
    assert_eq!(f.labels[0], 9);
    assert!(f.x.iter().all(|&v| (0.0..=1.0).contains(&v)));
    assert!(f.row(0).iter().any(|&v| v > 0.5));
}

#[test]
fn a_missing_data_set_names_the_package() {
    let empty = tempfile::tempdir().unwrap();
    let e = dna_from(empty.path()).unwrap_err();
    assert!(matches!(e, DataError::Missing { .. }));
    let msg = e.to_string();
    assert!(msg.contains("apt-get install r-cran-mlbench") && msg.contains("GRADFREE_MLBENCH_DIR"), "{msg}");
    let msg = fashion_mnist_from(empty.path()).unwrap_err().to_string();
    assert!(msg.contains("apt-get install dataset-fashion-mnist"), "{msg}");
    std::fs::write(empty.path().join("DNA.rda"), b"not R data").unwrap();
    let msg = dna_from(empty.path()).unwrap_err().to_string();
    assert!(msg.contains("cannot read") && msg.contains("RDX2"), "{msg}");
}
