//! Points and sets of points: a point is a small integer ([`Point`]), a set one bit
//! per point id ([`PointSet`]), and move generation runs over either a whole set or,
//! on small boards, one machine word ([`PointBits`]).

/// A set of points (one bit per point id).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PointSet(pub(crate) [u64; 4]);

impl PointSet {
    /// The empty set.
    pub const EMPTY: PointSet = PointSet([0; 4]);

    /// Adds a point.
    #[inline]
    pub fn insert(&mut self, p: Point) {
        self.0[p.index() >> 6] |= 1 << (p.index() & 63);
    }

    /// Removes a point.
    #[inline]
    pub fn remove(&mut self, p: Point) {
        self.0[p.index() >> 6] &= !(1 << (p.index() & 63));
    }

    /// Whether the set holds a point.
    #[inline]
    pub fn contains(&self, p: Point) -> bool {
        self.0[p.index() >> 6] >> (p.index() & 63) & 1 == 1
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// Number of points in the set.
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Points in both sets.
    #[inline]
    #[must_use]
    pub fn and(self, o: PointSet) -> PointSet {
        PointSet([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2], self.0[3] & o.0[3]])
    }

    /// Points in either set.
    #[inline]
    #[must_use]
    pub fn or(self, o: PointSet) -> PointSet {
        PointSet([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2], self.0[3] | o.0[3]])
    }

    /// Points in `self` but not in `o`.
    #[inline]
    #[must_use]
    pub fn minus(self, o: PointSet) -> PointSet {
        PointSet([self.0[0] & !o.0[0], self.0[1] & !o.0[1], self.0[2] & !o.0[2], self.0[3] & !o.0[3]])
    }

    /// Calls `f` with each point in increasing order: the fastest way through a set
    /// (the bits stay in registers), for hot loops.
    #[inline]
    pub fn for_each(self, mut f: impl FnMut(Point)) {
        for (w, word) in self.0.into_iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                f(Point((w * 64 + bits.trailing_zeros() as usize) as u8));
                bits &= bits - 1;
            }
        }
    }

    /// The points in increasing order.
    #[inline]
    pub fn iter(self) -> PointSetIter {
        PointSetIter { words: self.0, word: 0 }
    }
}

/// How move generation holds a set of points: a whole [`PointSet`], or — on a board of
/// at most 64 points ([`Board::fits_one_word`]), whose sets all live in their first
/// word — that one `u64`, on which every set operation is a single instruction. Move
/// generation is written once over this trait and runs with the narrowest form the
/// board allows.
pub(crate) trait PointBits: Copy + PartialEq {
    /// The empty set.
    const EMPTY: Self;
    /// Whether the set is one machine word, where whole-set tricks beat walking.
    const ONE_WORD: bool;
    /// How many words the set has ([`PointBits::word_at`]).
    const WORDS: usize;
    /// A [`PointSet`] in this form (for `u64`, its first word: the board must fit).
    fn of(set: &PointSet) -> Self;
    /// The set of the points of one word (ids below 64), from the board's
    /// [`WordTables`](super::WordTables).
    fn from_word(word: u64) -> Self;
    /// The set's points with ids below 64, as one word.
    fn word(self) -> u64;
    /// Word `w` of the set (ids `64 * w ..`; for `u64` only word 0 exists).
    fn word_at(self, w: usize) -> u64;
    /// Adds the points `bits` of word `w`.
    fn or_word(&mut self, w: usize, bits: u64);
    /// Points in both sets.
    fn and(self, o: Self) -> Self;
    /// Points in either set.
    fn or(self, o: Self) -> Self;
    /// Points in `self` but not in `o`.
    fn minus(self, o: Self) -> Self;
    /// Whether the set holds a point.
    fn contains(self, p: Point) -> bool;
    /// Adds a point.
    fn insert(&mut self, p: Point);
    /// Whether the set is empty.
    fn is_empty(self) -> bool;
    /// Calls `f` with each point in increasing order.
    fn for_each(self, f: impl FnMut(Point));
    /// Whether `f` holds for some point (tried in increasing order).
    fn any(self, f: impl FnMut(Point) -> bool) -> bool;
}

impl PointBits for PointSet {
    const EMPTY: Self = PointSet::EMPTY;
    const ONE_WORD: bool = false;
    const WORDS: usize = 4;

    #[inline]
    fn of(set: &PointSet) -> Self {
        *set
    }

    #[inline]
    fn from_word(word: u64) -> Self {
        PointSet([word, 0, 0, 0])
    }

    #[inline]
    fn word(self) -> u64 {
        self.0[0]
    }

    #[inline]
    fn word_at(self, w: usize) -> u64 {
        self.0[w & 3]
    }

    #[inline]
    fn or_word(&mut self, w: usize, bits: u64) {
        self.0[w & 3] |= bits;
    }

    #[inline]
    fn and(self, o: Self) -> Self {
        PointSet::and(self, o)
    }

    #[inline]
    fn or(self, o: Self) -> Self {
        PointSet::or(self, o)
    }

    #[inline]
    fn minus(self, o: Self) -> Self {
        PointSet::minus(self, o)
    }

    #[inline]
    fn contains(self, p: Point) -> bool {
        PointSet::contains(&self, p)
    }

    #[inline]
    fn insert(&mut self, p: Point) {
        PointSet::insert(self, p);
    }

    #[inline]
    fn is_empty(self) -> bool {
        PointSet::is_empty(&self)
    }

    #[inline]
    fn for_each(self, f: impl FnMut(Point)) {
        PointSet::for_each(self, f);
    }

    #[inline]
    fn any(self, f: impl FnMut(Point) -> bool) -> bool {
        self.iter().any(f)
    }
}

impl PointBits for u64 {
    const EMPTY: Self = 0;
    const ONE_WORD: bool = true;
    const WORDS: usize = 1;

    #[inline]
    fn of(set: &PointSet) -> Self {
        set.0[0]
    }

    #[inline]
    fn from_word(word: u64) -> Self {
        word
    }

    #[inline]
    fn word(self) -> u64 {
        self
    }

    #[inline]
    fn word_at(self, w: usize) -> u64 {
        debug_assert_eq!(w, 0);
        self
    }

    #[inline]
    fn or_word(&mut self, w: usize, bits: u64) {
        debug_assert_eq!(w, 0);
        *self |= bits;
    }

    #[inline]
    fn and(self, o: Self) -> Self {
        self & o
    }

    #[inline]
    fn or(self, o: Self) -> Self {
        self | o
    }

    #[inline]
    fn minus(self, o: Self) -> Self {
        self & !o
    }

    #[inline]
    fn contains(self, p: Point) -> bool {
        self >> (p.index() & 63) & 1 == 1
    }

    #[inline]
    fn insert(&mut self, p: Point) {
        *self |= 1 << (p.index() & 63);
    }

    #[inline]
    fn is_empty(self) -> bool {
        self == 0
    }

    #[inline]
    fn for_each(self, mut f: impl FnMut(Point)) {
        let mut bits = self;
        while bits != 0 {
            f(Point(bits.trailing_zeros() as u8));
            bits &= bits - 1;
        }
    }

    #[inline]
    fn any(self, mut f: impl FnMut(Point) -> bool) -> bool {
        let mut bits = self;
        while bits != 0 {
            if f(Point(bits.trailing_zeros() as u8)) {
                return true;
            }
            bits &= bits - 1;
        }
        false
    }

}

/// The points of a [`PointSet`] in increasing order ([`PointSet::iter`]).
#[derive(Clone, Debug)]
pub struct PointSetIter {
    words: [u64; 4],
    word: usize,
}

impl Iterator for PointSetIter {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        while self.word < 4 {
            let bits = self.words[self.word];
            if bits != 0 {
                self.words[self.word] = bits & (bits - 1);
                return Some(Point((self.word * 64 + bits.trailing_zeros() as usize) as u8));
            }
            self.word += 1;
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.words[self.word.min(4)..].iter().map(|w| w.count_ones() as usize).sum();
        (n, Some(n))
    }
}

impl ExactSizeIterator for PointSetIter {}

impl std::iter::FusedIterator for PointSetIter {}

impl FromIterator<Point> for PointSet {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Self {
        let mut s = PointSet::EMPTY;
        for p in iter {
            s.insert(p);
        }
        s
    }
}

/// A point of a board, by index. Names (`"c6"`) are resolved through [`Board::point`](super::Board::point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub(crate) u8);

impl Point {
    /// The point's index on its board (`0..board.len()`).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
