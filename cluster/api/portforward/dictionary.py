"""SPDY/3's zlib dictionary for header blocks (draft 3, section 2.6.10.1), as moby/spdystream's
framer seeds its compressor and decompressor: length-prefixed header names and values, then a
tail of status codes, reason phrases, dates and media types. A single wrong byte changes the
dictionary's Adler-32, and zlib refuses every header block the client sends."""

from __future__ import annotations

_NAMES = (
    "options head post put delete trace accept accept-charset accept-encoding accept-language "
    "accept-ranges age allow authorization cache-control connection content-base content-encoding "
    "content-language content-length content-location content-md5 content-range content-type date "
    "etag expect expires from host if-match if-modified-since if-none-match if-range "
    "if-unmodified-since last-modified location max-forwards pragma proxy-authenticate "
    "proxy-authorization range referer retry-after server te trailer transfer-encoding upgrade "
    "user-agent vary via warning www-authenticate method get status"
)
_LAST = ["200 OK", "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin"]
_WORDS = [*_NAMES.split(), *_LAST]

_TAIL = (
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
    "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request"
    "401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented"
    "503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 "
    "Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,"
    "application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age="
    "gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
)

HEADER_DICTIONARY = b"".join(
    len(word).to_bytes(4, "big") + word.encode("ascii") for word in _WORDS
) + _TAIL.encode("ascii")
