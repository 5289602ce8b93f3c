"""Documents of a release: the report (PDF and JSON) of what was released and how it
was checked. matplotlib and fpdf2 are imported inside the functions that draw."""
