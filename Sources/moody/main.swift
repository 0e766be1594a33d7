print("moody")
