/** A file name a client may give a render: letters, digits, space, dot, dash and underscore, at most 200 characters. */
export const FILE_NAME_PATTERN = /^[\w][\w .-]{0,199}$/;

export const FILE_NAME_RULE = 'letters, digits, space, dot, dash and underscore only; at most 200 characters';
