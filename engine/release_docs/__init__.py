"""Documents of a release: the report (PDF and JSON) of what was released and how it
was checked. fpdf2 is imported inside the functions that draw; the charts are its
vector graphics (no plotting library), the fonts matplotlib's DejaVu files."""
