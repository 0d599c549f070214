"""The static results site of a league (it shows ``hexarena.leagues.results.report``'s view; it computes nothing).

    publish.py    writes the site: pages, data files for the scripts (the records: games/chunk-*.js), standings exports
    charts.py     inline SVG charts: ratings with intervals, think-time histogram, heat map colours
    *.html        the jinja2 templates; *.js, site.css: the scripts and the stylesheet copied into every site
"""
