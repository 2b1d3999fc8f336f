from strategies.profiles import register_profiles

register_profiles()
