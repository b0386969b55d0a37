//! The stored facts ("atoms") of the YACPDB analyses and how query arguments match them.
//!
//! Takes in: analysis results (from `trajectory`, `platzwechsel`, `zilahi`, …) and the
//! argument strings of a validated query predicate.
//! Gives out: typed atoms such as `ClosedWalk(wR, 4, false)` and their YACPDB spelling.
//! Must never: look at a game.

use shakmaty::{Color, Role};

/// The analysis predicates whose results are stored as counted atoms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A unit leaves a square and comes back to it in one line (not a special case below).
    ClosedWalk,
    /// A unit retraces its route exactly (switchback and longer).
    TraceBack,
    /// A unit tours distinct squares, not all on one line, and returns.
    ArealCycle,
    /// A unit tours distinct squares on one straight line and returns.
    LinearCycle,
    /// Platzwechsel: units cyclically exchange their squares in one line.
    PW,
    /// One participant of a Platzwechsel, by its type when the exchange completes.
    PWPiece,
    /// The unit goes to the four diagonal neighbours in different lines.
    Star,
    /// The unit goes two squares diagonally, all four ways, in different lines.
    BigStar,
    /// The unit goes to the four orthogonal neighbours in different lines.
    Cross,
    /// The unit goes two squares orthogonally, all four ways, in different lines.
    BigCross,
    /// The unit makes all eight knight jumps in different lines.
    Wheel,
    /// The four moves of a white pawn from one square, in different lines.
    Albino,
    /// The four moves of a black pawn from one square, in different lines.
    Pickaninny,
    /// The unit goes from one corner to another corner in one line.
    CornerToCorner,
    /// The unit visits all four corners over the whole solution.
    FourCorners,
    /// A pawn promotes after a given number of its own moves.
    Excelsior,
    /// Number of phases of play (first moves, or set lines).
    Phases,
    /// Number of twins (always one per PGN game).
    Twins,
    /// A unit that gives the final move in one line is captured in another.
    ZilahiPiece,
    /// Lines chained in a circle by Zilahi pieces.
    Zilahi,
    /// A distinct model (or ideal) mate or stalemate position.
    Models,
    /// Number of units of one colour in the diagram.
    PCount,
}

/// The domain of one predicate argument, for matching query arguments against atoms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Colour letter plus Popeye piece code (`wS` = white knight).
    Piece,
    /// A non-negative integer.
    Int,
    /// `true` / `false`.
    Bool,
    /// `w`, `b` or `n`.
    Color,
}

impl Kind {
    /// Every stored kind, in documentation order.
    pub const ALL: [Kind; 22] = [
        Kind::ClosedWalk,
        Kind::TraceBack,
        Kind::ArealCycle,
        Kind::LinearCycle,
        Kind::PW,
        Kind::PWPiece,
        Kind::Star,
        Kind::BigStar,
        Kind::Cross,
        Kind::BigCross,
        Kind::Wheel,
        Kind::Albino,
        Kind::Pickaninny,
        Kind::CornerToCorner,
        Kind::FourCorners,
        Kind::Excelsior,
        Kind::Phases,
        Kind::Twins,
        Kind::ZilahiPiece,
        Kind::Zilahi,
        Kind::Models,
        Kind::PCount,
    ];

    /// The predicate name in YACPDB spelling.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ClosedWalk => "ClosedWalk",
            Kind::TraceBack => "TraceBack",
            Kind::ArealCycle => "ArealCycle",
            Kind::LinearCycle => "LinearCycle",
            Kind::PW => "PW",
            Kind::PWPiece => "PWPiece",
            Kind::Star => "Star",
            Kind::BigStar => "BigStar",
            Kind::Cross => "Cross",
            Kind::BigCross => "BigCross",
            Kind::Wheel => "Wheel",
            Kind::Albino => "Albino",
            Kind::Pickaninny => "Pickaninny",
            Kind::CornerToCorner => "CornerToCorner",
            Kind::FourCorners => "FourCorners",
            Kind::Excelsior => "Excelsior",
            Kind::Phases => "Phases",
            Kind::Twins => "Twins",
            Kind::ZilahiPiece => "ZilahiPiece",
            Kind::Zilahi => "Zilahi",
            Kind::Models => "Models",
            Kind::PCount => "PCount",
        }
    }

    /// The stored kind with this YACPDB name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Argument domains, in order.
    pub fn domains(self) -> &'static [Domain] {
        use Domain::*;
        match self {
            Kind::ClosedWalk | Kind::TraceBack | Kind::ArealCycle | Kind::LinearCycle => &[Piece, Int, Bool],
            Kind::PW | Kind::Zilahi => &[Int],
            Kind::PWPiece
            | Kind::Star
            | Kind::BigStar
            | Kind::Cross
            | Kind::BigCross
            | Kind::Wheel
            | Kind::Albino
            | Kind::Pickaninny
            | Kind::CornerToCorner
            | Kind::FourCorners => &[Piece],
            Kind::Excelsior => &[Piece, Int],
            Kind::Phases | Kind::Twins => &[],
            Kind::ZilahiPiece => &[Piece, Bool],
            Kind::Models => &[Int, Bool],
            Kind::PCount => &[Color],
        }
    }
}

/// One argument value of a stored atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A unit type: colour and role.
    Piece(Color, Role),
    /// A number (length, count, pins).
    Int(i64),
    /// A flag (with captures, unmoved, ideal).
    Bool(bool),
    /// A colour.
    Color(Color),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Value::Piece(color, role) => write!(f, "{}{}", color_letter(color), popeye_code(role)),
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Color(c) => write!(f, "{}", color_letter(c)),
        }
    }
}

/// `w` or `b`.
pub fn color_letter(color: Color) -> char {
    if color.is_white() {
        'w'
    } else {
        'b'
    }
}

/// The Popeye (English) code of an orthodox piece: K Q R B S P (S = knight).
pub fn popeye_code(role: Role) -> char {
    match role {
        Role::King => 'K',
        Role::Queen => 'Q',
        Role::Rook => 'R',
        Role::Bishop => 'B',
        Role::Knight => 'S',
        Role::Pawn => 'P',
    }
}

/// The orthodox role of a Popeye code (upper case), if any.
pub fn role_of_code(code: &str) -> Option<Role> {
    match code {
        "K" => Some(Role::King),
        "Q" => Some(Role::Queen),
        "R" => Some(Role::Rook),
        "B" => Some(Role::Bishop),
        "S" => Some(Role::Knight),
        "P" => Some(Role::Pawn),
        _ => None,
    }
}

/// A counted fact found in a game: a predicate kind and its argument values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The predicate.
    pub kind: Kind,
    /// The arguments (only the first `kind.domains().len()` are meaningful).
    pub args: [Value; 3],
}

impl Atom {
    /// An atom with up to three arguments.
    pub fn new(kind: Kind, args: &[Value]) -> Atom {
        let mut a = [Value::Int(0); 3];
        for (slot, v) in a.iter_mut().zip(args) {
            *slot = *v;
        }
        Atom { kind, args: a }
    }
}

impl std::fmt::Display for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.kind.domains().len();
        f.write_str(self.kind.name())?;
        if n > 0 {
            f.write_str("(")?;
            for (i, v) in self.args[..n].iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{v}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// How one query argument constrains the atom argument in its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `*`: anything.
    Any,
    /// Exactly this value.
    Exact(Value),
    /// A value no orthodox game can store (a fairy piece, neutral colour): matches nothing.
    Never,
}

/// Turn a query argument (`None` = `*`) into a pattern for its domain.
pub fn pattern(arg: Option<&str>, domain: Domain) -> Pattern {
    let Some(text) = arg else { return Pattern::Any };
    let value = match domain {
        Domain::Piece => parse_piece(text).map(|(c, r)| Value::Piece(c, r)),
        Domain::Int => text.parse::<i64>().ok().map(Value::Int),
        Domain::Bool => match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Domain::Color => match text {
            "w" => Some(Value::Color(Color::White)),
            "b" => Some(Value::Color(Color::Black)),
            _ => None,
        },
    };
    value.map_or(Pattern::Never, Pattern::Exact)
}

/// An orthodox unit type from a PIECE string (`wS`, `bK`); `None` for fairy or neutral.
pub fn parse_piece(text: &str) -> Option<(Color, Role)> {
    let mut chars = text.chars();
    let color = match chars.next()? {
        'w' => Color::White,
        'b' => Color::Black,
        _ => return None,
    };
    let role = role_of_code(chars.as_str())?;
    Some((color, role))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoms_print_in_yacpdb_spelling() {
        let a =
            Atom::new(Kind::ClosedWalk, &[Value::Piece(Color::White, Role::Knight), Value::Int(4), Value::Bool(false)]);
        assert_eq!(a.to_string(), "ClosedWalk(wS, 4, false)");
        assert_eq!(Atom::new(Kind::Phases, &[]).to_string(), "Phases");
        assert_eq!(Atom::new(Kind::PCount, &[Value::Color(Color::Black)]).to_string(), "PCount(b)");
    }

    #[test]
    fn patterns_follow_domains() {
        assert_eq!(pattern(None, Domain::Piece), Pattern::Any);
        assert_eq!(pattern(Some("bS"), Domain::Piece), Pattern::Exact(Value::Piece(Color::Black, Role::Knight)));
        assert_eq!(pattern(Some("wN"), Domain::Piece), Pattern::Never, "wN is a nightrider");
        assert_eq!(pattern(Some("3"), Domain::Int), Pattern::Exact(Value::Int(3)));
        assert_eq!(pattern(Some("n"), Domain::Color), Pattern::Never);
        assert_eq!(Kind::from_name("Wheel"), Some(Kind::Wheel));
    }
}
