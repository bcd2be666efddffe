//! The inverse-CDF autoencoder of thesis sec. 5.7: it learns (the reconstruction loss falls on
//! the digits, well below the loss of predicting the mean image), the same seed gives the same
//! model, the lattice sampler needs 12k + 1 prime, and bad input is an error.
#![cfg(feature = "train")]

use gradfree_robust::train::generative::{AeSpec, Autoencoder, EpsSampler};

fn digits() -> (Vec<f32>, usize) {
    let ds = gradfree_data::labeled::digits().unwrap();
    let max = ds.x.iter().fold(0.0f32, |m, v| m.max(*v));
    (ds.x.iter().map(|v| v / max).collect(), ds.d)
}

/// BCE per image of predicting every image by the mean image (the best constant decoder).
fn mean_image_bce(x: &[f32], d: usize) -> f64 {
    let n = x.len() / d;
    let mean: Vec<f64> = (0..d).map(|j| x.iter().skip(j).step_by(d).map(|&v| f64::from(v)).sum::<f64>() / n as f64).collect();
    let bce: f64 = x
        .chunks(d)
        .map(|r| {
            r.iter()
                .zip(&mean)
                .map(|(&v, &p)| {
                    let p = p.clamp(1e-6, 1.0 - 1e-6);
                    -(f64::from(v) * p.ln() + (1.0 - f64::from(v)) * (1.0 - p).ln())
                })
                .sum::<f64>()
        })
        .sum();
    bce / n as f64
}

#[test]
fn the_autoencoder_learns_with_either_sampler_and_is_seeded() {
    let (x, d) = digits();
    let baseline = mean_image_bce(&x, d);
    for sampler in [EpsSampler::Lattice, EpsSampler::Iid] {
        let spec = AeSpec { latent: 8, hidden: 128, sampler, seed: 3, ..AeSpec::default() };
        let mut ae = Autoencoder::new(spec.clone(), d).unwrap();
        let first = ae.epoch(&x).unwrap();
        let mut last = first.clone();
        for _ in 0..24 {
            last = ae.epoch(&x).unwrap();
        }
        assert!(last.reconstruction < 0.85 * first.reconstruction, "{sampler:?}: {first:?} -> {last:?}");
        let test = ae.reconstruction(&x, 1).unwrap();
        assert!(test < 0.8 * baseline, "{sampler:?}: {test} vs mean image {baseline}");
        assert_eq!(ae.reconstruction(&x, 1).unwrap(), test, "same eps draws, same loss");
        let images = ae.decode(&[0.0; 2 * 8]).unwrap();
        assert_eq!(images.len(), 2 * d);
        assert!(images.iter().all(|v| (0.0..=1.0).contains(v)));
        // Same seed, same model.
        let mut again = Autoencoder::new(spec, d).unwrap();
        for _ in 0..25 {
            again.epoch(&x).unwrap();
        }
        assert_eq!(again.reconstruction(&x, 1).unwrap(), test);
    }
}

#[test]
fn bad_settings_and_input_are_errors() {
    let (x, d) = digits();
    let e = Autoencoder::new(AeSpec { latent: 4, ..AeSpec::default() }, d).err().unwrap().to_string();
    assert!(e.contains("latent") && e.contains("12k + 1"), "{e}");
    let e = Autoencoder::new(AeSpec { lr: 0.0, ..AeSpec::default() }, d).err().unwrap().to_string();
    assert!(e.contains("lr"), "{e}");
    let mut ae = Autoencoder::new(AeSpec { latent: 6, ..AeSpec::default() }, d).unwrap();
    let mut bad = x[..10 * d].to_vec();
    bad[3] = 2.0;
    assert!(ae.epoch(&bad).unwrap_err().to_string().contains("[0, 1]"));
    assert!(ae.decode(&[0.0; 5]).is_err());
}
