//! Reader of the fixtures under tests/data/trove/<case>/: the arrays real TROVE hands to its
//! intensity loop, dumped by the bridge (fortran/trove/atomgpu_trove_dump.f90) during a real TROVE
//! run, and TROVE's own `.states` and `.trans` files of the same run (README "Using atomgpu from
//! TROVE" says how they were made).
//!
//! `model.txt` holds `key value...` lines and one `block J gamma nprim nsym ndeg nnz nstates` line
//! per (J, Gamma) block; `arrays.bin` the arrays, little-endian, in the order documented at
//! [`Fixture::read`]; `states.txt` (`id energy g_total J`) and `states_columns.txt` (the text after J)
//! one line per line of TROVE's `.states`.

use atomgpu::backend::Backend;
use atomgpu::linestrength::trove::StatesTable;
use atomgpu::linestrength::{
    Action, BlockSpec, Convention, IntensityParams, LineFilters, LineStrength, Options, SymmetryGroup, Unfolding,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One (J, Gamma) block as TROVE holds it.
pub struct FixtureBlock {
    pub j: u32,
    /// TROVE's igamma (1-based).
    pub gamma: u32,
    pub n_sym: usize,
    pub ndeg: usize,
    /// bset_contr%iroot_correlat_j0 (1-based), bset_contr%k, bset_contr%ktau.
    pub v: Vec<i64>,
    pub k: Vec<i64>,
    pub ktau: Vec<i64>,
    pub row_start: Vec<i64>,
    pub col: Vec<i64>,
    pub value: Vec<f64>,
    /// TROVE's ilevel, ID, position in its energy-sorted level list and energy (cm^-1) of each
    /// level, and the eigenvectors (n_sym per level).
    pub ilevel: Vec<i64>,
    pub ids: Vec<i64>,
    pub positions: Vec<i64>,
    pub energies: Vec<f64>,
    pub vectors: Vec<f64>,
}

/// A whole fixture case.
pub struct Fixture {
    pub dir: PathBuf,
    keys: HashMap<String, Vec<String>>,
    pub n_vib: usize,
    /// dipole_me(icontrI, icontrF, imu), column-major.
    pub dipole: Vec<f64>,
    pub blocks: Vec<FixtureBlock>,
    /// The `.states` table: ID, absolute energy, total degeneracy, J, the columns after J.
    pub state_ids: Vec<i64>,
    pub state_energies: Vec<f64>,
    pub state_g_total: Vec<i64>,
    pub state_j: Vec<u32>,
    pub state_columns: Vec<String>,
}

struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn take8(&mut self) -> [u8; 8] {
        let b: [u8; 8] = self.data[self.at..self.at + 8].try_into().expect("arrays.bin ends early");
        self.at += 8;
        b
    }
    fn ints(&mut self, n: usize) -> Vec<i64> {
        (0..n).map(|_| i64::from_le_bytes(self.take8())).collect()
    }
    fn reals(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| f64::from_le_bytes(self.take8())).collect()
    }
}

impl Fixture {
    /// Reads case `name` under tests/data/trove. `arrays.bin` holds, in this order: dipole_me
    /// (N x N x 3 reals); then per block of model.txt: v, k, ktau (nprim integers each), the
    /// unfolding in CSR (row_start: ndeg nprim + 1 integers, col: nnz integers, value: nnz reals),
    /// and per level: ilevel, ID, position (integers), energy (real), vector (nsym reals).
    pub fn read(name: &str) -> Fixture {
        Fixture::read_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/trove").join(name))
    }

    /// Reads the case in folder `dir` (a fixture made as [`Fixture::read`] says, anywhere).
    pub fn read_dir(dir: &Path) -> Fixture {
        let dir = dir.to_path_buf();
        let text = std::fs::read_to_string(dir.join("model.txt")).expect("model.txt");
        let mut keys = HashMap::new();
        let mut block_lines = Vec::new();
        for line in text.lines() {
            let mut words = line.split('#').next().unwrap().split_whitespace().map(str::to_string);
            let Some(key) = words.next() else { continue };
            let values: Vec<String> = words.collect();
            if key == "block" {
                block_lines.push(values);
            } else {
                keys.insert(key, values);
            }
        }
        let data = std::fs::read(dir.join("arrays.bin")).expect("arrays.bin");
        let mut bytes = Bytes { data: &data, at: 0 };
        let n_vib: usize = keys["nvib"][0].parse().unwrap();
        let dipole = bytes.reals(n_vib * n_vib * 3);
        let mut blocks = Vec::new();
        for b in &block_lines {
            let n: Vec<usize> = b.iter().map(|x| x.parse().unwrap()).collect();
            let (j, gamma, nprim, n_sym, ndeg, nnz, nstates) = (n[0], n[1], n[2], n[3], n[4], n[5], n[6]);
            let v = bytes.ints(nprim);
            let k = bytes.ints(nprim);
            let ktau = bytes.ints(nprim);
            let row_start = bytes.ints(ndeg * nprim + 1);
            let col = bytes.ints(nnz);
            let value = bytes.reals(nnz);
            let mut block = FixtureBlock {
                j: j as u32,
                gamma: gamma as u32,
                n_sym,
                ndeg,
                v,
                k,
                ktau,
                row_start,
                col,
                value,
                ilevel: vec![],
                ids: vec![],
                positions: vec![],
                energies: vec![],
                vectors: vec![],
            };
            for _ in 0..nstates {
                let head = bytes.ints(3);
                block.ilevel.push(head[0]);
                block.ids.push(head[1]);
                block.positions.push(head[2]);
                block.energies.push(bytes.reals(1)[0]);
                block.vectors.extend(bytes.reals(n_sym));
            }
            blocks.push(block);
        }
        assert_eq!(bytes.at, data.len(), "arrays.bin has bytes model.txt does not account for");
        let mut f = Fixture {
            dir,
            keys,
            n_vib,
            dipole,
            blocks,
            state_ids: vec![],
            state_energies: vec![],
            state_g_total: vec![],
            state_j: vec![],
            state_columns: vec![],
        };
        // A TM case has no .states table (TROVE prints its moments to its main output).
        let states = std::fs::read_to_string(f.dir.join("states.txt")).unwrap_or_default();
        for line in states.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            f.state_ids.push(w[0].parse().unwrap());
            f.state_energies.push(w[1].parse().unwrap());
            f.state_g_total.push(w[2].parse().unwrap());
            f.state_j.push(w[3].parse().unwrap());
        }
        let columns = std::fs::read_to_string(f.dir.join("states_columns.txt")).unwrap_or_default();
        f.state_columns = columns.lines().map(str::to_string).collect();
        assert_eq!(f.state_columns.len(), f.state_ids.len(), "states.txt and states_columns.txt differ in length");
        f
    }

    /// The words of `key`.
    pub fn words(&self, key: &str) -> &[String] {
        self.keys.get(key).unwrap_or_else(|| panic!("model.txt has no {key}"))
    }

    /// The reals of `key`.
    pub fn reals(&self, key: &str) -> Vec<f64> {
        self.words(key).iter().map(|x| x.parse().unwrap()).collect()
    }

    /// The integers of `key`.
    pub fn ints(&self, key: &str) -> Vec<i64> {
        self.words(key).iter().map(|x| x.parse().unwrap()).collect()
    }

    /// One real.
    pub fn real(&self, key: &str) -> f64 {
        self.reals(key)[0]
    }

    /// A file of the case directory, as text.
    pub fn text(&self, file: &str) -> String {
        std::fs::read_to_string(self.dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
    }

    /// The name of TROVE's own file of the case ending in `suffix` (`.trans`, `.states`).
    pub fn trove_file(&self, suffix: &str) -> String {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(suffix))
            .collect();
        assert_eq!(names.len(), 1, "one TROVE {suffix} file per case, found {names:?}");
        names.pop().unwrap()
    }

    /// A handle on `backend` holding everything TROVE's intensity loop holds.
    pub fn handle(&self, backend: Backend) -> LineStrength {
        let f = self;
        let mut h = LineStrength::new_on(backend, f.n_vib, &f.dipole, f.n_vib, Options::default()).unwrap();
        h.set_group(SymmetryGroup::named(&f.words("group")[0]).unwrap()).unwrap();
        let gns = f.reals("gns");
        for b in &f.blocks {
            let v: Vec<i64> = b.v.iter().map(|x| x - 1).collect();
            let k: Vec<i32> = b.k.iter().map(|&x| x as i32).collect();
            let tau: Vec<i32> = b.ktau.iter().map(|&x| (x % 2) as i32).collect();
            let unfolding =
                Unfolding { ndeg: b.ndeg, n_sym: b.n_sym, row_start: &b.row_start, col: &b.col, value: &b.value };
            let spec = BlockSpec {
                j: b.j,
                gamma: b.gamma - 1,
                gns: gns[b.gamma as usize - 1],
                v: &v,
                k: &k,
                tau: &tau,
                unfolding: Some(unfolding),
            };
            let id = h.add_block(&spec).unwrap();
            if !b.energies.is_empty() {
                h.set_states(id, &b.energies, &b.vectors, b.n_sym).unwrap();
                h.set_state_labels(id, &b.ids, &b.positions).unwrap();
            }
        }
        h
    }

    /// TROVE's INTENSITY options in atomgpu's terms.
    pub fn options(&self) -> (IntensityParams, LineFilters) {
        let f = self;
        let pair = |key: &str| {
            let r = f.reals(key);
            [r[0], r[1]]
        };
        let params = IntensityParams {
            temperature: f.real("temperature"),
            partition_function: f.real("qstat"),
            zpe: f.real("zpe"),
            freq_window: pair("freq_window"),
            lower_energy: pair("erange_low"),
            upper_energy: pair("erange_upp"),
            thresh_coeff: f.real("thresh_coeff"),
            thresh_line: f.real("thresh_line"),
            thresh_intens: f.real("thresh_intes"),
            batch: 16,
            convention: Convention::Trove,
            action: Action::Absorption,
        };
        let j = f.ints("j");
        let reduced = f.ints("reduced")[0] != 0;
        let filters = LineFilters {
            j_range: [j[0] as u32, j[1] as u32],
            reduced,
            degeneracy_filter: reduced,
            gamma_pair: Some(f.ints("isym_pairs").iter().map(|&g| g as u32 - 1).collect()),
        };
        (params, filters)
    }

    /// The `.states` columns as string slices, for [`Fixture::states_table`].
    pub fn columns(&self) -> Vec<&str> {
        self.state_columns.iter().map(String::as_str).collect()
    }

    /// TROVE's `.states` table.
    pub fn states_table<'a>(&'a self, columns: &'a [&'a str]) -> StatesTable<'a> {
        StatesTable {
            ids: &self.state_ids,
            energies: &self.state_energies,
            g_total: &self.state_g_total,
            j: &self.state_j,
            columns,
        }
    }
}
