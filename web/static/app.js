// placeholder: the page engineer writes the page
