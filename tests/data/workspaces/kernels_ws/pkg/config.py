open(__file__ + ".IMPORTED", "w").write("imported")  # never imported by the analysis

INTERPRET = True
