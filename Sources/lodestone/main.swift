print("lodestone")
