import pg from 'pg';

const DOLLAR_QUOTE = '$event$';

/**
 * A text as an SQL literal, for statements sent by the simple protocol, which takes no parameters.
 * Dollar-quoted when the quote's closing tag, appended, is the first one in the text and tag (the
 * text neither holds the tag nor ends with a start of it): nothing inside needs escaping.
 * pg.escapeLiteral builds its result a character at a time, and every append on a known head puts
 * its events' JSON through here; it stays for the rare text the quote cannot hold.
 */
export const textLiteral = (text: string): string =>
  `${text}${DOLLAR_QUOTE}`.indexOf(DOLLAR_QUOTE) === text.length ? `${DOLLAR_QUOTE}${text}${DOLLAR_QUOTE}` : pg.escapeLiteral(text);
