//! The quote-aware scan of a shell command: cuts it into segments on `;`, `&&`, `||`, `|`, `&`
//! and newlines, and records the first construct that makes it unsafe (a hazard).
//!
//! It follows the shell's tokenizer (POSIX `sh`, and bash): inside single quotes nothing is
//! special; inside double quotes `$`, backticks and backslash still are; outside quotes a
//! backslash escapes one character and `#` at the start of a word begins a comment. It fails
//! only on input the shell could not parse either (an open quote, a trailing backslash, a NUL).
//! It does not judge programs or options: that is the parent module's job, per segment.

use super::Unsafe;

/// The lexer's result: the segments, and the first construct that makes the command unsafe.
pub(super) struct Lexed {
    pub(super) segments: Vec<String>,
    pub(super) hazard: Option<Unsafe>,
    /// The first command or process substitution (`$(`, backticks, `<(`), even after another
    /// hazard: `echo $HOME $(rm x)` runs `rm`.
    pub(super) substitution: Option<Unsafe>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// What a `$` at `chars[i]` starts.
fn dollar(chars: &[char], i: usize) -> Unsafe {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('('), Some('(')) => Unsafe::Expansion,
        (Some('('), _) => Unsafe::Substitution,
        _ => Unsafe::Expansion,
    }
}

/// Blanks as the shell sees them (not `\r`, not Unicode spaces).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

fn unterminated() -> Unsafe {
    Unsafe::Syntax("a quote is not closed".into())
}

/// Scans the command once, like the shell's tokenizer: cuts it into segments and records the
/// first hazard. Errors only on input the shell could not parse either.
pub(super) fn lex(command: &str) -> Result<Lexed, Unsafe> {
    let chars: Vec<char> = command.chars().collect();
    if chars.contains(&'\0') {
        return Err(Unsafe::Syntax("it contains a NUL byte".into()));
    }
    let mut lexer = Lexer::new(chars);
    while lexer.i < lexer.chars.len() {
        match lexer.quote {
            Quote::Single => lexer.single_quoted(),
            Quote::Double => lexer.double_quoted()?,
            Quote::None => lexer.unquoted()?,
        }
    }
    if lexer.quote != Quote::None {
        return Err(unterminated());
    }
    lexer.finish_segment();
    Ok(Lexed {
        segments: lexer.segments,
        hazard: lexer.hazard,
        substitution: lexer.substitution,
    })
}

/// The scan's state; each step consumes one or more characters at `i`.
struct Lexer {
    chars: Vec<char>,
    i: usize,
    segments: Vec<String>,
    current: String,
    hazard: Option<Unsafe>,
    substitution: Option<Unsafe>,
    quote: Quote,
    /// At the start of a word (outside quotes): `#` begins a comment, `~` expands.
    word_start: bool,
    /// The previous character was an unquoted `=` or `:`: a `~` here expands too.
    after_eq_colon: bool,
    /// The previous character was an unquoted `<` or `>`: a `&` or `|` here is part of the
    /// redirection operator (`2>&1`, `<&3`, `>|`), not a separator.
    after_angle: bool,
}

impl Lexer {
    fn new(chars: Vec<char>) -> Self {
        Lexer {
            chars,
            i: 0,
            segments: Vec::new(),
            current: String::new(),
            hazard: None,
            substitution: None,
            quote: Quote::None,
            word_start: true,
            after_eq_colon: false,
            after_angle: false,
        }
    }

    fn at(&self) -> (char, Option<char>) {
        (self.chars[self.i], self.chars.get(self.i + 1).copied())
    }

    /// A `$` at `i`. `$((` is arithmetic to the safe list, but bash runs `$((cmd) )` as a
    /// command substitution, so for the normaliser it substitutes.
    fn dollar(&mut self) {
        let found = dollar(&self.chars, self.i);
        if self.chars.get(self.i + 1) == Some(&'(') && self.substitution.is_none() {
            self.substitution = Some(Unsafe::Substitution);
        }
        self.note(found);
    }

    /// Records `found` unless an earlier hazard was recorded: the first one is the reason.
    fn note(&mut self, found: Unsafe) {
        if matches!(found, Unsafe::Substitution | Unsafe::Backticks) && self.substitution.is_none()
        {
            self.substitution = Some(found.clone());
        }
        if self.hazard.is_none() {
            self.hazard = Some(found);
        }
    }

    fn finish_segment(&mut self) {
        let text = self.current.trim_matches(is_blank);
        if !text.is_empty() {
            self.segments.push(text.to_string());
        }
        self.current.clear();
    }

    /// Inside single quotes nothing is special until the closing quote.
    fn single_quoted(&mut self) {
        let (c, _) = self.at();
        self.current.push(c);
        if c == '\'' {
            self.quote = Quote::None;
        }
        self.i += 1;
    }

    /// Inside double quotes `$`, backticks and backslash keep their meaning.
    fn double_quoted(&mut self) -> Result<(), Unsafe> {
        let (c, next) = self.at();
        match c {
            '\\' => match next {
                Some('\n') => {}
                Some(n) => {
                    self.current.push(c);
                    self.current.push(n);
                }
                None => return Err(unterminated()),
            },
            '$' => self.dollar(),
            '`' => self.note(Unsafe::Backticks),
            '"' => self.quote = Quote::None,
            _ => {}
        }
        if c == '\\' {
            self.i += 2;
        } else {
            self.current.push(c);
            self.i += 1;
        }
        Ok(())
    }

    /// Outside quotes: operators, comments, escapes, and every hazard the shell would expand.
    fn unquoted(&mut self) -> Result<(), Unsafe> {
        let (c, next) = self.at();
        let mut starts_word = false;
        let after_angle = std::mem::take(&mut self.after_angle);
        match c {
            '\\' => return self.unquoted_backslash(next),
            '#' if self.word_start => {
                self.skip_comment();
                return Ok(());
            }
            '\'' => self.quote = Quote::Single,
            '"' => self.quote = Quote::Double,
            '`' => self.note(Unsafe::Backticks),
            '$' => self.dollar(),
            '<' | '>' => {
                self.after_angle = true;
                self.note(if next == Some('(') {
                    Unsafe::Substitution
                } else {
                    Unsafe::Redirection
                })
            }
            '&' | '|' if after_angle => {}
            '(' | ')' | '{' | '}' => self.note(Unsafe::Grouping),
            '*' | '?' | '[' => self.note(Unsafe::Glob),
            '~' if self.word_start || self.after_eq_colon => self.note(Unsafe::Tilde),
            '&' | '|' | ';' | '\n' => {
                self.separator(c, next);
                return Ok(());
            }
            ' ' | '\t' => starts_word = true,
            _ => {}
        }
        self.current.push(c);
        self.word_start = starts_word;
        self.after_eq_colon = matches!(c, '=' | ':');
        self.i += 1;
        Ok(())
    }

    fn unquoted_backslash(&mut self, next: Option<char>) -> Result<(), Unsafe> {
        match next {
            // A line continuation vanishes; the word state carries over.
            Some('\n') => self.i += 2,
            Some(n) => {
                self.current.push('\\');
                self.current.push(n);
                self.i += 2;
                self.word_start = false;
                self.after_eq_colon = false;
            }
            None => return Err(Unsafe::Syntax("it ends with a backslash".into())),
        }
        Ok(())
    }

    /// A comment runs to the end of the line; the newline still separates.
    fn skip_comment(&mut self) {
        while self.i < self.chars.len() && self.chars[self.i] != '\n' {
            self.i += 1;
        }
    }

    /// `&`, `|`, `;` or a newline at `i` (with `&&`, `||`, `|&` as one operator) ends a segment.
    fn separator(&mut self, c: char, next: Option<char>) {
        let mut len = 1;
        match (c, next) {
            ('&', Some('&')) | ('|', Some('|')) => len = 2,
            ('&', Some('>')) => self.note(Unsafe::Redirection),
            ('&', _) => self.note(Unsafe::Background),
            ('|', Some('&')) => {
                self.note(Unsafe::Redirection);
                len = 2;
            }
            _ => {}
        }
        self.finish_segment();
        self.i += len;
        self.word_start = true;
        self.after_eq_colon = false;
    }
}
