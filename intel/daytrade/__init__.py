"""The day-trade paper journal's pure core: the terms, the rules that open and close paper ideas from bars, the
journal events they make and the whole-journal track record. No I/O: the asset hands in bars and the journal so far,
the API hands in the journal's records."""
