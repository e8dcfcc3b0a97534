"""
Readers: what turns an input (a directory, a file) into facts the checks read.

- `tree`: `Tree`, the root-confined, read-only, never-following view of a directory;
- `pointers`: JSON Pointers (RFC 6901), numbers as `Decimal`, dimension texts;
- `records`: receipt sets read as a profile maps them onto the evidence model's `Receipt`s (`read_receipts`);
- `select`: selections over records and the statistics derived from them;
- `markdown_doc`, `html`: a Markdown claim document or HTML page read into a JSON-like document of what it shows;
- `locate`: where a profile says a bundle states a value (`locate`, `stated`);
- `mapped`: a profile's `bundle` section reads a foreign layout onto bundle
  format v1 (`MappedBundle`), so the native check families run on it;
- `native`: bundle v1 documents (native or mapped) onto the evidence model
  (`verifier.model.evidence`, `evidence_of`).

The profile loader and detection are in `verifier.profiles.language`, which
re-exports every public name here.
"""
